import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { gitEnv } from '../storage/cat-file.ts';

/** Where a replica keeps the primary's branch as last fetched (not served until it is loaded: see swap.ts). */
export const FETCHED_REF = 'refs/replica/primary';

/** A git command run against the primary failed; the message is git's own last line (it never holds the key). */
export class PrimaryGitError extends Error {}

/**
 * The system git, talking to the primary's `content.git` over smart HTTP with the replica's key. The
 * key goes in `http.extraHeader` through GIT_CONFIG_* variables, never on the command line (where
 * `ps` shows it to every user of the machine) nor in the URL (which git writes into its config and
 * messages).
 */
export class PrimaryGit {
  readonly url: string;

  constructor(
    primary: string,
    private readonly key: string,
    private readonly log: Logger,
  ) {
    this.url = `${primary}/content.git`;
  }

  /**
   * Clones the primary's repository, bare, into `gitdir`: into a folder beside it first, renamed
   * into place once whole, so a clone cut short (a stop, the primary gone) leaves nothing that looks
   * like a repository. git's progress goes to the log, a line every few seconds.
   */
  async clone(gitdir: string, signal: AbortSignal): Promise<void> {
    const temp = `${gitdir}.cloning`;
    fs.rmSync(temp, { recursive: true, force: true });
    try {
      await this.run(['clone', '--bare', '--progress', '--no-local', this.url, temp], { signal, progress: true });
      fs.renameSync(temp, gitdir);
    } finally {
      fs.rmSync(temp, { recursive: true, force: true });
    }
  }

  /**
   * Fetches the primary's main into FETCHED_REF (objects and ref durable); resolves with the commit
   * fetched. With the commit the primary announced, that commit is fetched by its id: git's protocol
   * v2 then skips listing the refs, one request (and one upload-pack on the primary) less.
   */
  async fetch(gitdir: string, signal: AbortSignal, commit?: string): Promise<string> {
    const fetch = (source: string) => this.run(['--git-dir', gitdir, '-c', 'core.fsync=committed,reference', '-c', 'protocol.version=2', 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', this.url, `+${source}:${FETCHED_REF}`], { signal });
    if (commit === undefined) await fetch('refs/heads/main');
    else {
      try {
        await fetch(commit);
        return commit;
      } catch (err) {
        if (signal.aborted) throw err;
        // A server that takes no wants by id: by the branch's name.
        await fetch('refs/heads/main');
      }
    }
    // The ref as fetch left it, loose; packed (after a gc) it takes git to read.
    const loose = readRef(join(gitdir, FETCHED_REF));
    return loose ?? (await this.run(['--git-dir', gitdir, 'rev-parse', '--verify', `${FETCHED_REF}^{commit}`], { signal, local: true })).trim();
  }

  /** The primary's main, without fetching it (the fallback when its revision endpoint cannot be used). */
  async head(signal: AbortSignal): Promise<string | null> {
    const listed = await this.run(['ls-remote', this.url, 'refs/heads/main'], { signal });
    return /^[0-9a-f]{40}/.exec(listed)?.[0] ?? null;
  }

  private run(args: string[], opts: { signal: AbortSignal; progress?: boolean; local?: boolean }): Promise<string> {
    const env: NodeJS.ProcessEnv = { ...gitEnv(), GIT_TERMINAL_PROMPT: '0' };
    if (!opts.local) Object.assign(env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Bearer ${this.key}` });
    return new Promise((resolve, reject) => {
      const child = spawn('git', args, { env, stdio: ['ignore', 'pipe', 'pipe'], signal: opts.signal });
      let out = '';
      let err = '';
      let lastProgress = 0;
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        if (err.length < 16_384) err += chunk;
        if (!opts.progress) return;
        // git redraws its progress with carriage returns: the latest line, every few seconds.
        const line = chunk.split(/[\r\n]/).filter((l) => l.trim() !== '').at(-1);
        if (line !== undefined && Date.now() - lastProgress > 2000) {
          lastProgress = Date.now();
          this.log.info({ primary: this.url, progress: line.trim() }, 'cloning the primary\'s repository');
        }
      });
      child.once('error', (e) => reject(opts.signal.aborted ? new PrimaryGitError('stopped') : new PrimaryGitError(`git ${args.find((a) => !a.startsWith('-') && !a.includes('/')) ?? ''} could not be run: ${e.message}`)));
      child.once('close', (code) => {
        if (code === 0) return resolve(out);
        const lines = err.split(/[\r\n]/).map((l) => l.trim()).filter((l) => l !== '' && !/^(remote: )?(Counting|Compressing|Receiving|Resolving|Enumerating)/.test(l));
        reject(new PrimaryGitError(lines.at(-1) ?? `git exited with ${code}`));
      });
    });
  }
}

function readRef(path: string): string | null {
  try {
    const text = fs.readFileSync(path, 'utf8').trim();
    return /^[0-9a-f]{40}$/.test(text) ? text : null;
  } catch {
    return null;
  }
}
