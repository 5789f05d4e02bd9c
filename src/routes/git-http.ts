import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Context, Middleware } from 'koa';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { requireScope, unauthorized, type Actor } from '../http/actor.ts';
import { requestLog } from '../http/logging.ts';
import type { OAuthFront } from '../oauth/front.ts';
import { BASIC_CHALLENGE, gitActor } from './git/credential.ts';
import { gitProtocolOf, gitRequestOf, pktLine, type GitRequest, type GitService } from './git/endpoints.ts';
import { GitProcesses } from './git/processes.ts';
import { ReceivePack } from './git/receive-pack.ts';

/**
 * `content.git`: the data repository served to git clients over git's smart HTTP protocol
 * (docs/git-access.md), by git's own server side, `git upload-pack --stateless-rpc`, streamed both
 * ways; pushes (with help:write) by the service's own receive-pack, which validates them as
 * import-files does. The repository holds drafts and working copies, so every request needs a
 * credential with help:read. Mounted before the JSON body handling: git's requests are git's own
 * media types.
 */
export function gitHttp(deps: Deps, oauth: OAuthFront): Middleware {
  const repoPath = `${deps.config.basePath}/content.git`;
  const processes = new GitProcesses({ max: deps.config.gitConcurrency, maxPerAddress: deps.config.gitConcurrencyPerAddress, timeoutMs: deps.config.gitTimeoutSeconds * 1000 }, deps.stopping);
  const receivePack = new ReceivePack(deps, processes);
  return async (ctx, next) => {
    if (ctx.path !== repoPath && !ctx.path.startsWith(`${repoPath}/`)) return next();
    try {
      ctx.state.route = repoPath;
      const request = gitRequestOf(repoPath, ctx.method, ctx.path.slice(repoPath.length), ctx.query.service);
      ctx.state.route = request.route;
      await serve(ctx, request);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      answerError(ctx, err);
    }
  };

  async function serve(ctx: Context, request: GitRequest): Promise<void> {
    const actor = (ctx.state.actor = await gitActor(ctx.get('authorization'), deps.keys, oauth, oauth.audienceFor(ctx.path)));
    if (actor === null) throw unauthorized(`${repoPath} needs a credential with help:read: a key as the password of HTTP Basic (a git credential helper), or "Authorization: Bearer <key or access token>"`);
    requireScope(actor, 'help:read');
    if (request.service === 'git-receive-pack') return push(ctx, request, actor);
    const input = request.kind === 'rpc' ? requestBody(ctx, request.service) : null;
    processes.checkRoom(ctx.ip);
    const protocol = gitProtocolOf(ctx.req.headers['git-protocol']);
    const args = ['upload-pack', '--stateless-rpc', '--strict', ...(request.kind === 'advertisement' ? ['--advertise-refs'] : []), deps.repo.gitdir];
    const started = await new Promise<Awaited<ReturnType<GitProcesses['start']>>>((resolve, reject) => {
      // The process holds off pack merges and repacks, which remove packs it may be reading, until it exits.
      void deps.repo.reading(async () => {
        let run: Awaited<ReturnType<GitProcesses['start']>>;
        try {
          run = await processes.start({ args, protocol, input, res: ctx.res, address: ctx.ip, log: requestLog(ctx) });
        } catch (err) {
          reject(err);
          return;
        }
        resolve(run);
        await run?.exited;
      });
    });
    // The client left while the process waited for a pack merge to finish: nothing to answer.
    if (started === null) {
      ctx.respond = false;
      return;
    }
    ctx.status = 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.type = `application/x-${request.service}-${request.kind === 'advertisement' ? 'advertisement' : 'result'}`;
    ctx.body = request.kind === 'advertisement' && !protocol?.split(':').includes('version=2') ? withServiceLine(request.service, started.output) : started.output;
  }

  /** A push: answered by the service's own receive-pack (git/receive-pack.ts), never by git's with its hooks. */
  async function push(ctx: Context, request: GitRequest, actor: Actor): Promise<void> {
    requireScope(actor, 'help:write');
    const replica = deps.replication.replica;
    if (replica !== null) throw new AppError('push_not_accepted', `This service is a read replica and takes no pushes: push to its primary, ${replica.config.primary}/content.git`, { primary: `${replica.config.primary}/content.git` });
    let answer: Buffer;
    if (request.kind === 'advertisement') answer = receivePack.advertise();
    else answer = await receivePack.receive(actor, requestBody(ctx, request.service), ctx.ip, requestLog(ctx));
    ctx.status = 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.type = `application/x-git-receive-pack-${request.kind === 'advertisement' ? 'advertisement' : 'result'}`;
    ctx.body = answer;
  }
}

/** The body of a round of the exchange: git's request type, sent as is or gzip-compressed (as git compresses large ones). */
function requestBody(ctx: Context, service: GitService): Readable {
  const type = ctx.get('content-type');
  if (type !== `application/x-${service}-request`) {
    throw new AppError('unsupported_media_type', `POST ${service} takes application/x-${service}-request, not ${type === '' ? 'a body without a type' : JSON.stringify(type)}`, { field: 'header/content-type' });
  }
  const encoding = ctx.get('content-encoding').toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return ctx.req.pipe(createGunzip());
  if (encoding === '' || encoding === 'identity') return ctx.req;
  throw new AppError('unsupported_media_type', `POST ${service} takes its body as it is or gzip-compressed, not ${JSON.stringify(encoding)}`, { field: 'header/content-encoding' });
}

/** Protocol v0's advertisement over HTTP opens with the service's name, which upload-pack does not write itself. */
function withServiceLine(service: string, output: Readable): Readable {
  const out = new PassThrough();
  out.write(Buffer.concat([pktLine(`# service=${service}\n`), Buffer.from('0000')]));
  output.pipe(out);
  return out;
}

/**
 * The error envelope, as everywhere, with a Basic challenge on a 401, which is what makes git ask its
 * credential helper. git shows the text of an answer it refuses only when it is text/plain, so a git
 * client gets the message alone, which it prints as `remote: …` above its own error.
 */
function answerError(ctx: Context, err: AppError): void {
  ctx.status = err.status;
  ctx.set('Cache-Control', 'no-store');
  if (err.code === 'unauthorized') ctx.set('WWW-Authenticate', BASIC_CHALLENGE);
  if (typeof err.data.retryAfter === 'number') ctx.set('Retry-After', String(err.data.retryAfter));
  if (ctx.get('user-agent').startsWith('git/')) {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = `${err.message}\n`;
  } else {
    ctx.body = { error: { code: err.code, message: err.message, ...err.data, requestId: ctx.state.requestId } };
  }
}
