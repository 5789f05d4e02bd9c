import type { ServerResponse } from 'node:http';
import { AppError } from '../errors.ts';

/** Seconds a refused client is asked to wait: a tool-server request is usually answered within one. */
const RETRY_AFTER_S = 1;

/**
 * Tool-server requests being answered at once, in all and per client address
 * (HELP_MCP_CONCURRENCY, HELP_MCP_CONCURRENCY_PER_ADDRESS). Each holds its answer in memory until
 * the answer is sent; without a bound, a few clients asking at once multiplied what one request may
 * take. A slot is held from when the request's body has arrived (a client sending its body slowly
 * holds none) until its response closes: sent, failed, or dropped by the client.
 */
export class Slots {
  private total = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(
    readonly max: number,
    readonly maxPerAddress: number,
  ) {}

  /**
   * Takes a slot for `address` until `res` closes, or refuses with 429 too_many_requests. False when
   * the response has closed already (the client left while its body was read): nothing to answer, and
   * a slot taken then would never be released.
   */
  hold(address: string, res: ServerResponse): boolean {
    const mine = this.byAddress.get(address) ?? 0;
    if (mine >= this.maxPerAddress) {
      throw new AppError('too_many_requests', `${mine} tool-server requests from ${address} are being answered, the most one address may have at once (HELP_MCP_CONCURRENCY_PER_ADDRESS); retry when one has been answered`, { limit: 'mcp_concurrency_per_address', max: this.maxPerAddress, retryAfter: RETRY_AFTER_S });
    }
    if (this.total >= this.max) {
      throw new AppError('too_many_requests', `${this.total} tool-server requests are being answered, the most the service answers at once (HELP_MCP_CONCURRENCY); retry in a moment`, { limit: 'mcp_concurrency', max: this.max, retryAfter: RETRY_AFTER_S });
    }
    if (res.closed) return false;
    this.total++;
    this.byAddress.set(address, mine + 1);
    res.once('close', () => this.release(address));
    return true;
  }

  private release(address: string): void {
    this.total--;
    const mine = (this.byAddress.get(address) ?? 1) - 1;
    if (mine === 0) this.byAddress.delete(address);
    else this.byAddress.set(address, mine);
  }
}
