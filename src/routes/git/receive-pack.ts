import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { VersionState } from '../../domain/types.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../http/actor.ts';
import { BRANCH } from '../../storage/branch.ts';
import { adoptCommit } from '../../store/adopt-commit.ts';
import { pktLine } from './endpoints.ts';
import type { GitProcesses } from './processes.ts';
import { readPushCommands, PushRequestError, PushTimeoutError, ZERO_ID, type PushCommand } from './push-commands.ts';
import { checkPush, type Checked } from './push-check.ts';
import { PushReply } from './push-reply.ts';
import { stampsPlan } from './push-stamps.ts';
import { PackRefused, Quarantine } from './quarantine.ts';

/** What the service's receive-pack supports: no deletes, no push options, no atomic (one ref is taken anyway). */
const CAPABILITIES = 'report-status side-band-64k quiet ofs-delta agent=help-content';
/** Bytes of a refused push's body read (and dropped) so that git, still sending, hears the answer. */
const DRAIN_MAX = 64 * 1024 * 1024;

const short = (oid: string) => oid.slice(0, 7);

/**
 * `git push` to `content.git`, answered by the service itself (no git hooks): the commands are
 * read, the pack is taken into a quarantine with `git index-pack --strict`, and the push is checked
 * as import-files checks content files (every version folder it changes), with the lock on published
 * versions and a fast-forward of `main` required. Accepted, the pack moves into the repository and
 * `main` to the pushed commit as a replica adopts its primary's, under the writer's locks; then one
 * commit of the service records the stamps of what changed (docs/git-access.md#pushing).
 */
export class ReceivePack {
  constructor(
    private readonly deps: Deps,
    private readonly processes: GitProcesses,
  ) {
    // A push cut short by a stop or a crash left its quarantine: nothing else uses it.
    Quarantine.clearAll(deps.repo.gitdir);
  }

  /** The advertisement (protocol v0, which git push speaks over HTTP): main and the capabilities taken. */
  advertise(): Buffer {
    const head = this.deps.repo.headCommit;
    const first = head === null ? `${ZERO_ID} capabilities^{}\0${CAPABILITIES}\n` : `${head} ${BRANCH}\0${CAPABILITIES}\n`;
    return Buffer.concat([pktLine('# service=git-receive-pack\n'), Buffer.from('0000'), pktLine(first), Buffer.from('0000')]);
  }

  /** Answers a push's request (`POST git-receive-pack`, the body decompressed): report-status, always 200 once the commands are read. */
  async receive(actor: Actor, input: Readable, address: string, log: Logger): Promise<Buffer> {
    const slot = this.processes.claim(address);
    const late = () => new PushTimeoutError('the push took longer than a request to content.git may (HELP_GIT_TIMEOUT)');
    // While the commands are read, the time limit answers 408 on the connection (destroying the
    // request would close it unanswered); once they are, it ends the pack's stream.
    const timedOut = new Promise<never>((_, reject) => slot.signal.addEventListener('abort', () => reject(late()), { once: true }));
    timedOut.catch(() => undefined); // also after the commands, when nothing awaits it
    const onAbort = () => input.destroy(late());
    try {
      let request;
      try {
        const reading = readPushCommands(input);
        reading.catch(() => undefined);
        request = await Promise.race([reading, timedOut]);
        slot.signal.addEventListener('abort', onAbort, { once: true });
      } catch (err) {
        if (err instanceof PushTimeoutError) {
          const seconds = this.deps.config.gitTimeoutSeconds;
          throw new AppError('request_timeout', `The push's commands did not arrive within ${seconds} s (HELP_GIT_TIMEOUT); nothing was changed: push again`, { timeoutSeconds: seconds });
        }
        if (!(err instanceof PushRequestError)) throw new AppError('validation_failed', `body: the push's commands could not be read: ${(err as Error).message}`, { field: 'body', errors: [{ field: 'body', message: (err as Error).message }] });
        throw new AppError('validation_failed', `body is not a push git would send: ${err.message}`, { field: 'body', errors: [{ field: 'body', message: err.message }] });
      }
      if (request.commands.length === 0) return Buffer.alloc(0);
      const reply = new PushReply(request.capabilities);
      const commands = request.commands;
      // Held off pack merges meanwhile: index-pack and the checks read the repository's packs on their own.
      const results = await this.deps.repo.reading(() => this.run(actor, commands, request.pack, reply, slot.signal, log)).catch((err: unknown) => {
        if (err instanceof AppError && err.status < 500) throw err;
        // Said to git, which shows a 500 only as "RPC failed": the push is refused, and the log has the cause.
        if (!(err instanceof AppError)) log.error({ err }, 'a push could not be taken');
        const why = `${err instanceof AppError ? err.message : 'the service could not take the push (its log has the cause)'}; main is unchanged: try again`;
        reply.say(`error: ${why}`, true);
        return { unpack: null, refs: commands.map((c) => ({ ref: c.ref, error: why })) };
      });
      return reply.finish(results.unpack, results.refs);
    } finally {
      slot.signal.removeEventListener('abort', onAbort);
      slot.release();
    }
  }

  private async run(actor: Actor, commands: PushCommand[], pack: Readable, reply: PushReply, signal: AbortSignal, log: Logger): Promise<{ unpack: string | null; refs: Array<{ ref: string; error: string | null }> }> {
    const refuseAll = async (why: string) => {
      await drain(pack);
      reply.say(`error: ${why}`, true);
      return { unpack: null, refs: commands.map((c) => ({ ref: c.ref, error: why })) };
    };
    const refusals = commands.map((c, i) => ({ ref: c.ref, error: commandProblem(c, i, commands) }));
    const wrong = refusals.find((r) => r.error !== null);
    if (wrong) {
      await drain(pack);
      reply.say(`error: ${wrong.ref}: ${wrong.error}`, true);
      return { unpack: null, refs: refusals.map((r) => ({ ref: r.ref, error: r.error ?? `not updated: ${wrong.ref} was refused, and a push is taken whole or not at all` })) };
    }
    const command = commands[0];
    const head = this.deps.repo.headCommit;
    const old = command.old === ZERO_ID ? null : command.old;
    if (old !== head) return refuseAll(staleMessage(head));
    const q = await Quarantine.create(this.deps.repo.gitdir);
    try {
      try {
        await q.receive(pack, this.deps.config.gitPushMaxMb * 1024 * 1024, signal);
      } catch (err) {
        if (!(err instanceof PackRefused)) throw err;
        await drain(pack);
        reply.say(`error: ${err.message}`, true);
        return { unpack: err.message, refs: [{ ref: command.ref, error: 'unpacker error' }] };
      }
      const checked = await checkPush(this.deps, q, actor, old, command.new, reply);
      if (typeof checked === 'string') return refuseAll(checked);
      return await this.accept(q, actor, old, command.new, checked, reply, log);
    } catch (err) {
      if (err instanceof PackRefused) return refuseAll(err.message);
      throw err;
    } finally {
      await q.remove().catch((err: unknown) => log.warn({ err, dir: q.dir }, 'a push\'s quarantine could not be removed; the next start removes it'));
    }
  }

  /** Under the writer's locks: main still where the push started from, the pack moved in, main moved, the stamps recorded. */
  private async accept(q: Quarantine, actor: Actor, old: string | null, pushed: string, checked: Checked, reply: PushReply, log: Logger): Promise<{ unpack: string | null; refs: Array<{ ref: string; error: string | null }> }> {
    const { repo, catalog, writer } = this.deps;
    const slugs = checked.folders.map((f) => f.slug);
    const locked = checked.latest !== null && !slugs.includes(checked.latest) ? [...slugs, checked.latest] : slugs;
    const outcome = await writer.exclusive(locked, async (commit) => {
      if (repo.headCommit !== old) return staleMessage(repo.headCommit);
      const before = new Map(slugs.map((slug) => [slug, catalog.entry(slug)?.state ?? null]));
      const published = await q.publish();
      try {
        await adoptCommit(pushed, { repo, catalog, revisions: this.deps.replication.revisions, log }, `push: ${actor.name}`);
      } finally {
        published.release();
      }
      log.info({ from: old, to: pushed, versions: slugs, author: actor.name }, 'push accepted');
      // The pushed commits in history before the stamps' commit, which the writer records after them.
      await this.deps.history.adopt(pushed);
      if (checked.folders.length === 0) return null;
      try {
        await commit({ name: actor.name, canWritePublished: true }, stampsPlan(checked.folders, before, pushed, this.deps.config.portal.path, catalog.all().map((e) => e.state).filter((s): s is VersionState => s !== undefined)));
        const stamped = repo.headCommit;
        if (stamped !== null && stamped !== pushed) reply.say(`the service recorded when each change was made in commit ${short(stamped)}: git pull brings it (a fast-forward)`);
      } catch (err) {
        log.error({ err, pushed }, 'the stamps of an accepted push could not be recorded; the pushed commit is served with the stamps it carries');
        reply.say('warning: the push is accepted, but its stamps could not be recorded: the changed content keeps the times it had', true);
      }
      return null;
    });
    if (outcome !== null) {
      reply.say(`error: ${outcome}`, true);
      return { unpack: null, refs: [{ ref: BRANCH, error: outcome }] };
    }
    reply.say(`main is at ${short(repo.headCommit ?? pushed)}: ${checked.folders.length === 0 ? 'no version folder changed' : `changed ${checked.folders.map((f) => f.slug).join(', ')}`}`);
    return { unpack: null, refs: [{ ref: BRANCH, error: null }] };
  }
}

/** What is wrong with one command of a push, or null: only main is taken, never deleted, once. */
function commandProblem(c: PushCommand, i: number, all: readonly PushCommand[]): string | null {
  if (c.ref !== BRANCH) return `only ${BRANCH} is taken (git push origin HEAD:main); the repository holds no other branch or tag`;
  if (c.new === ZERO_ID) return 'main is not deleted: the repository is the service\'s content';
  if (all.findIndex((o) => o.ref === c.ref) !== i) return 'the same ref twice in one push';
  return null;
}

function staleMessage(head: string | null): string {
  return `main has moved on since you last pulled (it is at ${head === null ? 'no commit' : short(head)} now): git pull, then push again (fetch first)`;
}

/** Reads what is left of a refused push's body, up to a bound, so that git hears the answer rather than a broken pipe. */
async function drain(body: Readable): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += (chunk as Buffer).length;
      if (read > DRAIN_MAX) break;
    }
  } catch {
    // The body is dropped either way.
  }
}
