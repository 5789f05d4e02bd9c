import { AppError, notFound } from '../../errors.ts';

/** The two services of git's smart HTTP protocol. */
export type GitService = 'git-upload-pack' | 'git-receive-pack';

/**
 * One request of git's smart HTTP protocol: the advertisement (`GET info/refs?service=…`), which
 * starts every clone, fetch and push, or a round of the exchange itself (`POST git-upload-pack`).
 */
export interface GitRequest {
  kind: 'advertisement' | 'rpc';
  service: GitService;
  /** The route label for logs and metrics: one of a fixed few. */
  route: string;
}

const SERVICES: readonly string[] = ['git-upload-pack', 'git-receive-pack'];

/**
 * The request below the repository's URL, or an error. The paths are an allow-list compared whole:
 * nothing of the URL ever names a file or a directory, so no URL can reach another repository or a
 * file of the data directory. The dumb protocol (`HEAD`, `objects/…`) is not served.
 */
export function gitRequestOf(repoPath: string, method: string, rest: string, service: string | string[] | undefined): GitRequest {
  if (rest === '/info/refs') {
    if (method !== 'GET') throw notAllowed(repoPath + rest, method, 'GET');
    if (typeof service !== 'string' || !SERVICES.includes(service)) {
      throw notFound('route', `${repoPath}/info/refs is answered to git clients with ?service=git-upload-pack (clone, fetch) or ?service=git-receive-pack (push); the dumb HTTP protocol is not served`);
    }
    return { kind: 'advertisement', service: service as GitService, route: `${repoPath}/info/refs` };
  }
  const rpc = rest.slice(1);
  if (rest.startsWith('/') && SERVICES.includes(rpc)) {
    if (method !== 'POST') throw notAllowed(repoPath + rest, method, 'POST');
    return { kind: 'rpc', service: rpc as GitService, route: repoPath + rest };
  }
  throw notFound('route', `No endpoint ${method} ${repoPath}${rest}: ${repoPath} serves git's smart HTTP protocol to git clients (git clone ${repoPath})`);
}

function notAllowed(path: string, method: string, allowed: string): AppError {
  return new AppError('method_not_allowed', `${path} does not take ${method}; it takes ${allowed}`, { allow: [allowed] });
}

/**
 * The client's `Git-Protocol` header as git's server side takes it in GIT_PROTOCOL (what selects
 * protocol v2), or undefined. Only `key=value` items of plain characters, as git sends: the value
 * goes into a child's environment.
 */
export function gitProtocolOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || header.length > 256) return undefined;
  return /^[A-Za-z0-9._-]+(=[A-Za-z0-9._-]*)?(:[A-Za-z0-9._-]+(=[A-Za-z0-9._-]*)?)*$/.test(header) ? header : undefined;
}

/** A pkt-line (git's framing: four hex digits of length, the length counting themselves). */
export function pktLine(text: string): Buffer {
  const body = Buffer.from(text);
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
}
