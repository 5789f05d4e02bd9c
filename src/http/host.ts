import { isIP } from 'node:net';
import type { Context, Middleware } from 'koa';
import { AppError } from '../errors.ts';

/** A DNS name (letters, digits, `-`, and `_` as container and service names have it), one label at a time. */
const LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;

/**
 * Whether `value` is a `Host` header the service may copy into the URLs it hands out: a name, an IPv4
 * address or a bracketed IPv6 address, then an optional port (RFC 9110 7.2). Anything else (a path,
 * a quote, white space, user info) would be written verbatim into canonical links and the sitemap,
 * and kept by a shared cache for every reader.
 */
export function isValidHost(value: string): boolean {
  if (value.length === 0 || value.length > 260) return false;
  const m = /^(\[[^\]]*\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  if (!m) return false;
  const [, name, port] = m;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  if (name.startsWith('[')) return isIP(name.slice(1, -1)) === 6 && !name.includes('%');
  const labels = (name.endsWith('.') ? name.slice(0, -1) : name).split('.');
  // The URL parser has the last word: a name of digits that is no IPv4 address (999.0.0.1) makes no
  // URL (nor, on the URL parsers of some Node.js versions, a punycode label that decodes to nothing:
  // xn--a), and the authorization server builds its URLs with the Host.
  return name.length <= 254 && labels.every((label) => LABEL.test(label)) && URL.canParse(`http://${value}/`);
}

/** How many `Host` lines the request carried (Node.js keeps the first of several in `headers.host`). */
function hostLines(raw: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') n++;
  return n;
}

/** Hosts found valid lately: a service is reached under a handful of names, checked once each, not on every read. */
const KNOWN_GOOD = new Set<string>();
const KNOWN_GOOD_MAX = 64;

function validHost(host: string): boolean {
  if (KNOWN_GOOD.has(host)) return true;
  if (!isValidHost(host)) return false;
  // Bounded: a client sending a new valid name with each request only keeps this from helping.
  if (KNOWN_GOOD.size >= KNOWN_GOOD_MAX) KNOWN_GOOD.clear();
  KNOWN_GOOD.add(host);
  return true;
}

/** Why the request's Host cannot be used, or null when it can (or, in HTTP/1.0, is absent: nothing is copied then). */
function hostProblem(ctx: Context): string | null {
  const req = ctx.req;
  const host = req.headers.host;
  if (host === undefined) return req.httpVersion === '1.0' ? null : 'An HTTP/1.1 request must carry a Host header';
  if (hostLines(req.rawHeaders) > 1) return 'The request carries more than one Host header';
  if (!validHost(host)) return 'The Host header is not a host name or IP address with an optional port (host[:port])';
  return null;
}

/**
 * Refuses a request whose Host is not one (400 malformed_request naming the header), before any
 * part of the service reads it: without HELP_PUBLIC_URL the portal's links, the sitemap, robots.txt
 * and the PDF bundle's font URLs are built from it, and a cache in front keeps what they say.
 * It answers on its own: it runs before the error boundary, so that no answer is built from such a Host.
 */
export function refuseBadHost(): Middleware {
  return (ctx, next) => {
    const problem = hostProblem(ctx);
    if (problem === null) return next();
    const error = new AppError('malformed_request', problem, { field: 'header/host' });
    ctx.status = error.status;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { error: { code: error.code, message: error.message, ...error.data, requestId: ctx.state.requestId } };
  };
}
