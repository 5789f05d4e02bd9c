import { BlockList, isIP } from 'node:net';
import type { Middleware } from 'koa';
import type { IncomingMessage } from 'node:http';
import type { TrustedProxies } from '../config.ts';

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is 10.0.0.1. */
export const plainAddress = (address: string): string => (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address);

/**
 * Which address a request came from, for every limit kept per address: the connection's, unless it
 * is a trusted proxy (HELP_TRUSTED_PROXIES), whose `X-Forwarded-For` then says. Forwarded headers
 * from anyone else are ignored: a client could write any address there, and go round every limit.
 */
export class ClientAddresses {
  private readonly trusted: BlockList | null;

  constructor(private readonly proxies: TrustedProxies) {
    this.trusted = proxies.kind === 'list' ? blockListOf(proxies.ranges) : null;
  }

  /** Whether the connection's peer is a proxy whose forwarded headers are believed. */
  isTrustedPeer(peer: string): boolean {
    const address = plainAddress(peer);
    if (this.proxies.kind === 'hops') return true;
    return this.trusted !== null && isIP(address) !== 0 && this.trusted.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
  }

  /** The client's address for a request. */
  of(req: IncomingMessage): string {
    const peer = plainAddress(req.socket.remoteAddress ?? '');
    if (this.proxies.kind === 'none' || !this.isTrustedPeer(peer)) return peer;
    const forwarded = forwardedFor(req);
    if (this.proxies.kind === 'hops') {
      // Each of the N proxies appended the address it was reached from: the client is N entries from the right.
      const chain = [peer, ...forwarded.reverse()];
      return chain[Math.min(this.proxies.hops, chain.length - 1)];
    }
    // From the nearest hop back, past every trusted proxy: the first address that is not one is the client.
    let client = peer;
    for (let i = forwarded.length - 1; i >= 0; i--) {
      if (!this.isTrustedPeer(client)) break;
      client = forwarded[i];
    }
    return client;
  }

  /** Sets `ctx.ip` (every limit's key) to the client's address, once, before anything reads it. */
  middleware(): Middleware {
    return (ctx, next) => {
      ctx.request.ip = this.of(ctx.req);
      return next();
    };
  }
}

/** The addresses of X-Forwarded-For, left to right, up to the first that is no address (a port is dropped). */
function forwardedFor(req: IncomingMessage): string[] {
  const header = req.headers['x-forwarded-for'];
  const raw = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
  const out: string[] = [];
  // The right end is the nearest hop's: the walk stops at an entry that is no address, keeping what is right of it.
  for (let i = raw.length - 1; i >= 0; i--) {
    const address = withoutPort(raw[i].trim());
    if (address === null) break;
    out.unshift(address);
  }
  return out;
}

function withoutPort(entry: string): string | null {
  if (isIP(entry) !== 0) return plainAddress(entry);
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (bracketed && isIP(bracketed[1]) === 6) return plainAddress(bracketed[1]);
  const v4 = /^([\d.]+):\d+$/.exec(entry);
  if (v4 && isIP(v4[1]) === 4) return v4[1];
  return null;
}

function blockListOf(ranges: readonly string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, bits] = range.split('/');
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}
