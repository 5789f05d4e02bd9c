import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { extname, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gitEnv } from '../../storage/cat-file.ts';
import { publishPack, type PackExt, type PublishedPack } from '../../storage/pack-publish.ts';

/** Where pushed packs wait, inside the git dir (so that their move into objects/pack is a rename). */
const QUARANTINE_DIR = 'push-quarantine';
/** Bytes of git's error output kept for a refusal's message. */
const STDERR_KEPT = 4096;

/** A push's objects could not be taken (too large, malformed, incomplete): the push is refused with this message. */
export class PackRefused extends Error {}

/**
 * A push's objects, kept apart from the repository until the push is accepted, as git's own
 * receive-pack keeps them: git commands run with `env` see the repository's objects and these, and
 * nothing else sees these. Refused or failed, the folder is removed and the repository is as it was.
 */
export class Quarantine {
  private constructor(
    readonly gitdir: string,
    readonly dir: string,
  ) {}

  /** Removes what a push cut short by a crash left (at start: no push runs yet). */
  static clearAll(gitdir: string): void {
    fs.rmSync(join(gitdir, QUARANTINE_DIR), { recursive: true, force: true });
  }

  static async create(gitdir: string): Promise<Quarantine> {
    const dir = join(gitdir, QUARANTINE_DIR, randomBytes(8).toString('hex'));
    await fs.promises.mkdir(join(dir, 'pack'), { recursive: true });
    return new Quarantine(gitdir, dir);
  }

  /** The environment of a git command that reads the pushed objects with the repository's. */
  env(): NodeJS.ProcessEnv {
    return { ...gitEnv(), GIT_OBJECT_DIRECTORY: this.dir, GIT_ALTERNATE_OBJECT_DIRECTORIES: join(this.gitdir, 'objects') };
  }

  /**
   * Receives the pack with `git index-pack --stdin --fix-thin --strict` (every object checked as git
   * fsck checks it, thin deltas completed from the repository), at most `maxBytes` of it, ended
   * at `signal`. An empty body (a push of commits the repository has) writes nothing.
   */
  async receive(pack: Readable, maxBytes: number, signal: AbortSignal): Promise<void> {
    let received = 0;
    let first: Buffer | null = null;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        received += chunk.length;
        if (received > maxBytes) done(new PackRefused(`the pack is larger than the ${Math.round(maxBytes / 1024 / 1024)} MB a push may send (HELP_GIT_PUSH_MAX_MB): push fewer changes at a time`));
        else done(null, chunk);
      },
    });
    // Waits for the first bytes before starting git: most bodies of a push that only moves a ref are empty.
    const it = pack.pipe(counter)[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    try {
      const head = await it.next();
      if (head.done) return;
      first = head.value;
    } catch (err) {
      throw err instanceof PackRefused ? err : new PackRefused(`the pack could not be read: ${(err as Error).message}`);
    }
    const child = spawn('git', ['--git-dir', this.gitdir, 'index-pack', '--stdin', '--fix-thin', '--strict', `--max-input-size=${maxBytes}`], { env: this.env(), stdio: ['pipe', 'ignore', 'pipe'], signal, killSignal: 'SIGKILL' });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => {
      if (stderr.length < STDERR_KEPT) stderr += c.slice(0, STDERR_KEPT - stderr.length);
    });
    child.stdin.on('error', () => undefined);
    const exited = new Promise<number | null>((resolve) => {
      child.once('error', () => resolve(null));
      child.once('close', (code) => resolve(code));
    });
    const rest = (async function* () {
      yield first!;
      for (;;) {
        const next = await it.next();
        if (next.done) return;
        yield next.value;
      }
    })();
    let fed: unknown = null;
    await pipeline(rest, child.stdin).catch((err: unknown) => {
      fed = err;
      child.kill('SIGKILL');
    });
    const code = await exited;
    if (fed instanceof PackRefused) throw fed;
    if (signal.aborted) throw new PackRefused('the push took longer than a request to content.git may (HELP_GIT_TIMEOUT)');
    if (fed !== null && code !== 0) throw new PackRefused(`the pack could not be read: ${(fed as Error).message}`);
    if (code !== 0) throw new PackRefused(`the pack was refused by git index-pack: ${lastLines(stderr)}`);
  }

  /** Runs git on the repository with the pushed objects visible; its output, or a PackRefused with git's error. */
  git(args: readonly string[], what: string, maxBuffer = 64 * 1024 * 1024): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      execFile('git', ['--git-dir', this.gitdir, ...args], { env: this.env(), encoding: 'buffer', maxBuffer }, (err, out, stderr) => {
        if (err) reject(new PackRefused(`${what}: ${lastLines(String(stderr)) || err.message}`));
        else resolve(out);
      });
    });
  }

  /**
   * Moves the pushed packs into the repository durably: each file fsynced, then moved into
   * objects/pack as a commit's pack is (pack-publish.ts), under a `.keep` until release() (once main
   * refers to them).
   */
  async publish(): Promise<{ release(): void }> {
    const from = join(this.dir, 'pack');
    const names = (await fs.promises.readdir(from)).filter((n) => /^pack-[0-9a-f]+\.(pack|rev|idx)$/.test(n));
    for (const name of names) {
      const handle = await fs.promises.open(join(from, name), 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    if (names.length === 0) return { release: () => undefined };
    const target = join(this.gitdir, 'objects', 'pack');
    await fs.promises.mkdir(target, { recursive: true });
    const packs = new Map<string, Partial<Record<PackExt, string>>>();
    for (const name of names) {
      const ext = extname(name) as PackExt;
      const base = name.slice(0, -ext.length);
      packs.set(base, { ...packs.get(base), [ext]: join(from, name) });
    }
    const published: PublishedPack[] = [];
    try {
      for (const [base, temps] of packs) published.push(await publishPack(target, base, temps));
    } catch (err) {
      for (const p of published) p.release();
      throw err;
    }
    return { release: () => published.forEach((p) => p.release()) };
  }

  /** Removes the quarantine and what it still holds. */
  async remove(): Promise<void> {
    await fs.promises.rm(this.dir, { recursive: true, force: true });
  }
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join('; ').replace(/^(fatal|error): /, '');
}
