import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One delivery as a receiver saw it. */
export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A webhook receiver on 127.0.0.1: records every POST and answers with the status `answer` gives
 * (200 by default), so a test can make it fail first and succeed later.
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (path: string, n: number) => number = () => 200;
  private server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, body });
        res.statusCode = this.answer(path, this.received.filter((r) => r.path === path).length);
        res.end(res.statusCode < 300 ? 'ok' : 'failed');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** What reached `path`. */
  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Waits until `path` has received `count` deliveries (at most `ms`). */
  async waitFor(path: string, count: number, ms = 10_000): Promise<Received[]> {
    const deadline = Date.now() + ms;
    while (this.at(path).length < count) {
      if (Date.now() > deadline) throw new Error(`${path} received ${this.at(path).length} of ${count} deliveries within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.at(path);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/**
 * The Standard Webhooks check, written from the recipe (not with the service's code): HMAC-SHA256
 * keyed with the base64 after `whsec_`, over `id.timestamp.body`, as `v1,<base64>`; the header may
 * hold several signatures separated by spaces.
 */
export function verifySignature(secret: string, r: Received): boolean {
  const id = String(r.headers['webhook-id']);
  const timestamp = String(r.headers['webhook-timestamp']);
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${r.body}`).digest('base64');
  return String(r.headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
}
