import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { now } from './util.ts';

/**
 * Git settings that make the baselines durable, like the service: every object, pack, index and
 * ref that git writes is fsynced (git 2.36+; older gits ignore unknown settings).
 */
export const DURABLE = ['-c', 'core.fsync=all', '-c', 'core.fsyncMethod=fsync'];

/**
 * Keeps every pack fast-import writes as a pack, as the service keeps its own. With git's default
 * (`fastimport.unpackLimit` 100) a checkpoint's small pack is exploded into loose objects, each one
 * (and its folder) fsynced under `core.fsync=all`: two to three times slower than git can write.
 */
export const KEEP_PACKS = ['-c', 'fastimport.unpackLimit=0'];

const AUTHOR = 'bench <bench@example.invalid> 1700000000 +0000';

export function gitInitBare(gitdir: string): void {
  fs.mkdirSync(gitdir, { recursive: true });
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', gitdir]);
}

export function git(gitdir: string, ...args: string[]): string {
  return execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
}

export function commitCount(gitdir: string): number {
  try {
    return Number(git(gitdir, 'rev-list', '--count', 'main').trim());
  } catch {
    return 0;
  }
}

/** The pieces of a fast-import stream. */
export const fi = {
  commit(message: string, opts: { from?: string } = {}): string {
    const msg = Buffer.from(message, 'utf8');
    return `commit refs/heads/main\nauthor ${AUTHOR}\ncommitter ${AUTHOR}\ndata ${msg.length}\n${message}\n${opts.from ? `from ${opts.from}\n` : ''}`;
  },
  /** An inline file; returns [header, bytes, LF] so large contents are not copied into one string. */
  file(path: string, content: string | Buffer): Buffer[] {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    return [Buffer.from(`M 100644 inline ${path}\ndata ${bytes.length}\n`), bytes, Buffer.from('\n')];
  },
  /** The optional blank line that ends a commit. */
  endCommit: '\n',
  checkpoint: 'checkpoint\n\n',
  done: 'done\n',
};

export type Chunk = string | Buffer;

/**
 * Runs `git fast-import` on `gitdir` with the given stream (`depth`: its --depth, the longest delta chain;
 * `durable`: fsync everything, as the service does; `keepPacks`: no pack unpacked into loose objects). Chunks are written with back-pressure; to time git
 * alone, pass an array built beforehand (the time runs from spawn to exit).
 */
export async function fastImport(gitdir: string, chunks: Iterable<Chunk>, opts: { durable?: boolean; depth?: number; keepPacks?: boolean } = {}): Promise<{ ms: number }> {
  const args = [...(opts.durable ? DURABLE : []), ...(opts.keepPacks ? KEEP_PACKS : []), '--git-dir', gitdir, 'fast-import', '--quiet', '--done', ...(opts.depth !== undefined ? [`--depth=${opts.depth}`] : [])];
  const started = now();
  const proc = spawn('git', args, { stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-8192)));
  const exited = new Promise<number | null>((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => resolve(code));
  });
  const stdin = proc.stdin;
  let broken: Error | null = null;
  stdin.on('error', (e) => (broken = e));
  for (const chunk of chunks) {
    if (broken) break;
    if (!stdin.write(chunk)) await new Promise<void>((resolve) => stdin.once('drain', resolve));
  }
  stdin.end();
  const code = await exited;
  const ms = now() - started;
  if (code !== 0 || broken) throw new Error(`git fast-import failed (${code}): ${err || (broken as Error | null)?.message}`);
  return { ms };
}

/** A whole version as one commit: `files` (paths inside the version folder) under `<slug>/`. */
export function* versionCommit(slug: string, files: Iterable<{ path: string; content: string }>, message: string): Generator<Chunk> {
  yield fi.commit(message);
  for (const f of files) yield* fi.file(`${slug}/${f.path}`, f.content);
  yield fi.endCommit;
  yield fi.done;
}

/**
 * The cold-read ceiling, the way git reads fastest: one `git ls-tree -r` lists the version's blobs and
 * its output is streamed, as it comes, into one `git cat-file --batch`, whose output is consumed as a
 * stream (counted, not kept). Returns the time from the first spawn to the last byte, and the bytes read.
 * `slug` null reads every version.
 */
export async function catFileVersion(gitdir: string, slug: string | null): Promise<{ ms: number; blobs: number; bytes: number }> {
  const started = now();
  const cat = spawn('git', ['--git-dir', gitdir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const list = spawn('git', ['--git-dir', gitdir, 'ls-tree', '-r', 'main', ...(slug === null ? [] : [`${slug}/`])], { stdio: ['ignore', 'pipe', 'ignore'] });
  let bytes = 0;
  let blobs = 0;
  cat.stdout.on('data', (c: Buffer) => (bytes += c.length));
  const catExit = new Promise<number | null>((resolve) => cat.once('close', (code) => resolve(code)));
  const listExit = new Promise<number | null>((resolve) => list.once('close', (code) => resolve(code)));
  let rest = '';
  list.stdout.on('data', (c: Buffer) => {
    const lines = (rest + c.toString('latin1')).split('\n');
    rest = lines.pop()!;
    const oids = lines.filter((l) => l.includes(' blob ')).map((l) => l.split(/\s+/)[2]);
    blobs += oids.length;
    if (oids.length > 0) cat.stdin.write(`${oids.join('\n')}\n`);
  });
  const listCode = await listExit;
  cat.stdin.end();
  const code = await catExit;
  const ms = now() - started;
  if (listCode !== 0 || code !== 0) throw new Error(`git ls-tree (${listCode}) or cat-file --batch (${code}) failed`);
  return { ms, blobs, bytes };
}

/** Sizes in the repository, from `git count-objects -v` (KiB, as git gives them). */
export function countObjects(gitdir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of git(gitdir, 'count-objects', '-v').split('\n')) {
    const m = /^([\w-]+): (\d+)$/.exec(line.trim());
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** The top-level folders of `main` (the versions) and the id of each one's tree. */
export function versionTrees(gitdir: string): Map<string, string> {
  const trees = new Map<string, string>();
  for (const line of git(gitdir, 'ls-tree', 'main').split('\n')) {
    const m = /^040000 tree ([0-9a-f]+)\t(.+)$/.exec(line);
    if (m) trees.set(m[2], m[1]);
  }
  return trees;
}

/** Copies a folder (a repository, before a scenario changes it). */
export function copyDir(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true });
}

/**
 * Copies the repository of a running service: the service merges small packs in the background, so
 * a pack listed by the copy can vanish before it is read; the copy then starts over (every object is
 * in some pack at every moment, so a copy that completes is whole).
 */
export function copyRepository(from: string, to: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      fs.cpSync(from, to, { recursive: true });
      return;
    } catch (err) {
      fs.rmSync(to, { recursive: true, force: true });
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 10) throw err;
    }
  }
}

export const contentGit = (dataDir: string) => join(dataDir, 'content.git');
