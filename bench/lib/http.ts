import * as http from 'node:http';
import { now } from './util.ts';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

export interface Answer {
  status: number;
  text: string;
  /** Request start to last byte. */
  ms: number;
}

/** One request over a kept-alive connection; the body is sent as JSON text when given. */
export function request(method: string, url: string, opts: { key?: string; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let payload: Buffer | undefined;
    if (opts.body !== undefined) {
      payload = Buffer.from(opts.body, 'utf8');
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    const started = now();
    const req = http.request(url, { method, headers, agent }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8'), ms: now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * GETs a URL and counts the bytes as they arrive (compressed ones are not decompressed): time to the
 * last byte. `headers` are sent (e.g. Accept-Encoding); the answer's headers come back.
 */
export function download(
  url: string,
  opts: { keep?: boolean; counter?: { bytes: number }; headers?: Record<string, string> } = {},
): Promise<{ status: number; bytes: number; ms: number; body?: Buffer; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const started = now();
    http
      .get(url, { agent: false, headers: opts.headers }, (res) => {
        let bytes = 0;
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (opts.counter) opts.counter.bytes = bytes;
          if (opts.keep) parts.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: now() - started, body: opts.keep ? Buffer.concat(parts) : undefined, headers: res.headers }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
