import type { Context, Middleware } from 'koa';
import { invalid, AppError } from '../errors.ts';
import type { Replication } from '../replica/replication.ts';
import { errorBoundary } from './errors.ts';
import { PrimaryKeys } from './primary-keys.ts';
import type { KeyRing } from '../auth/key-ring.ts';

const REVISION = /^[0-9a-f]{40}$/;
/** Seconds a client is asked to wait before asking again for a revision not served yet. */
const RETRY_AFTER_S = 1;

export interface ReplicationOptions {
  replication: Replication;
  basePath: string;
  mcpPath: string;
  bodyLimit: number;
  keys: KeyRing;
  /** Whether commit `older` is `newer` or in its history (replica/ancestry.ts). */
  isAncestor: (older: string, newer: string) => Promise<boolean>;
  /** Aborted when the service stops: a wait for a revision ends. */
  stopping: AbortSignal;
}

/**
 * What every answer owes to replication, before any answer is made (the answer cache's included):
 *
 * - `X-Content-Revision`: the commit the content is served from (at least: a read answered while a
 *   newer commit is swapped in may be newer). A write's answer carries the revision that holds it.
 * - At least a revision (`X-Min-Revision` or `?minRevision=`): a client reads its own write. A
 *   revision that is the one served, or in its history, is satisfied; a replica waits for others up
 *   to HELP_REPLICA_MIN_REVISION_WAIT, then answers 503 `revision_not_available` with Retry-After.
 *   The primary has every write it acknowledged, so it does not wait.
 * - On a replica: writes (any method but GET, HEAD and OPTIONS), the tool server and sign-in are
 *   the primary's: 307 to the same URL there (method and body kept); `content.git` is served here
 *   (pushes are refused as on the primary). Keys are checked by the primary (PrimaryKeys).
 */
export function replicationMiddleware(o: ReplicationOptions): Middleware {
  const render = errorBoundary(o.bodyLimit);
  const replica = o.replication.replica;
  const feed = o.replication.revisions;
  const waitMs = replica?.config.minRevisionWaitMs ?? 0;
  const primaryOrigin = replica ? new URL(replica.config.primary).origin : '';
  const gitPrefix = `${o.basePath}/content.git/`;
  const remoteKeys = o.keys instanceof PrimaryKeys ? o.keys : null;

  /** The primary's URL for this request: the API's base there for the API, its origin for the rest. */
  const primaryUrl = (ctx: Context) => (ctx.path === o.basePath || ctx.path.startsWith(`${o.basePath}/`) ? `${replica!.config.primary}${ctx.originalUrl.slice(o.basePath.length)}` : `${primaryOrigin}${ctx.originalUrl}`);

  const isPrimarysOwn = (ctx: Context) => {
    if (ctx.path.startsWith(gitPrefix)) return false;
    if (ctx.path === o.mcpPath || ctx.path.startsWith('/oauth/') || ctx.path.startsWith('/.well-known/')) return true;
    return ctx.method !== 'GET' && ctx.method !== 'HEAD' && ctx.method !== 'OPTIONS';
  };

  /** The revision asked for, or null; the query parameter is taken out of the URL, so the answer (and its validator) is the URL's without it. */
  const wanted = (ctx: Context): string | null => {
    const header = ctx.get('x-min-revision');
    const query = ctx.querystring.includes('minRevision') ? ctx.query.minRevision : undefined;
    if (query !== undefined) {
      const params = new URLSearchParams(ctx.querystring);
      params.delete('minRevision');
      ctx.querystring = params.toString();
    }
    if (header !== '') {
      if (!REVISION.test(header)) throw invalid('header/x-min-revision', 'must be a commit id: 40 hexadecimal digits in lower case');
      return header;
    }
    if (query === undefined) return null;
    if (typeof query !== 'string' || !REVISION.test(query)) throw invalid('query/minRevision', 'must be a commit id: 40 hexadecimal digits in lower case, given once');
    return query;
  };

  const reached = async (revision: string): Promise<boolean> => {
    const served = feed.current;
    return served !== null && (feed.holds(revision) || (await o.isAncestor(revision, served)));
  };

  const awaitRevision = async (revision: string): Promise<void> => {
    const deadline = Date.now() + waitMs;
    // git is asked once: a revision served later comes with the commits it brings (RevisionFeed.holds),
    // so many reads waiting through many swaps do not start a git process each at every swap.
    let satisfied = await reached(revision);
    while (!satisfied) {
      const left = deadline - Date.now();
      if (left <= 0 || o.stopping.aborted) {
        throw new AppError('revision_not_available', `Revision ${revision} is not served here${replica ? ' yet' : ''} (serving ${feed.current ?? 'nothing'}); retry in a moment${replica ? ', or read from the primary' : ''}`, { revision, served: feed.current, retryAfter: RETRY_AFTER_S });
      }
      await feed.changed(feed.current, left, o.stopping);
      satisfied = feed.holds(revision);
    }
  };

  return async (ctx, next) => {
    const before = feed.current;
    if (before !== null) ctx.set('X-Content-Revision', before);
    try {
      if (replica && isPrimarysOwn(ctx)) {
        const location = primaryUrl(ctx);
        ctx.status = 307;
        ctx.set('Location', location);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { location, message: 'This service is a read replica: writes, sign-in and the tool server are its primary\'s; send the request there (a client that follows redirects does, with the same method and body)' };
        return;
      }
      const revision = wanted(ctx);
      if (revision !== null) {
        await awaitRevision(revision);
        ctx.set('X-Content-Revision', feed.current!);
      }
      const authorization = ctx.get('authorization');
      if (remoteKeys !== null && authorization !== '') await remoteKeys.check(authorization);
    } catch (err) {
      return render(ctx, () => Promise.reject(err));
    }
    await next();
    // A write's answer: the revision that holds it (the primary moves it before the write is answered).
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD' && !ctx.headerSent && feed.current !== null && feed.current !== before) ctx.set('X-Content-Revision', feed.current);
  };
}
