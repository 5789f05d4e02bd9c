import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { hostOf, resolveTarget, TargetRefused, type AllowList } from './addresses.ts';

/** Bytes of a receiver's answer read at most: enough for an error message in the log, never a flood. */
export const ANSWER_CAP = 4096;

/** How one attempt went: the status (null when no answer came), how long it took, and what went wrong. */
export interface Attempt {
  status: number | null;
  ok: boolean;
  ms: number;
  error: string | null;
  /** The start of the receiver's answer, for the delivery log. */
  answer: string;
}

/**
 * POSTs one delivery. Only a 2xx answer counts as delivered; a redirect is not followed (its target
 * was never checked) and counts as a failure, as does an answer that does not end within the timeout.
 */
export async function send(url: string, headers: Record<string, string>, body: string, allow: AllowList, timeoutMs: number): Promise<Attempt> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const target = new URL(url);
  let resolved: { address: string; family: 4 | 6 };
  try {
    resolved = await resolveTarget(hostOf(target), allow);
  } catch (err) {
    if (!(err instanceof TargetRefused)) throw err;
    return { status: null, ok: false, ms: took(), error: `refused: ${err.message}`, answer: '' };
  }
  // The connection goes to the address checked above, whatever a new lookup of the name would say.
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [resolved]);
    else callback(null, resolved.address, resolved.family);
  };
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Attempt>((resolve) => {
    let settled = false;
    const done = (a: Omit<Attempt, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ...a, ms: took() });
    };
    const req = request(target, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'help-content-service-webhooks' }, lookup: pinned, agent: false }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        const answer = Buffer.concat(chunks).subarray(0, ANSWER_CAP).toString('utf8');
        const ok = status >= 200 && status < 300;
        done({ status, ok, error: ok ? null : status >= 300 && status < 400 ? `answered ${status} (a redirect, not followed)` : `answered ${status}`, answer });
      };
      res.on('data', (chunk: Buffer) => {
        if (size < ANSWER_CAP) chunks.push(chunk);
        size += chunk.length;
        // The rest of a large answer is of no use: stop reading it rather than wait for its end.
        if (size >= ANSWER_CAP) finish();
      });
      res.on('end', finish);
      res.on('error', finish);
    });
    const timer = setTimeout(() => done({ status: null, ok: false, error: `no answer within ${timeoutMs / 1000} s`, answer: '' }), timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => done({ status: null, ok: false, error: err.code ?? err.message, answer: '' }));
    req.end(body);
  });
}
