import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Commits files into a bare repository's main branch with the system git, as a writer pushing by hand would. */
export function commitWithGit(gitdir: string, files: Record<string, string>, message: string, opts: { replace?: boolean } = {}): void {
  const work = mkdtempSync(join(tmpdir(), 'help-work-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GIT_AUTHOR_NAME: 'hand', GIT_AUTHOR_EMAIL: 'hand@example.org', GIT_COMMITTER_NAME: 'hand', GIT_COMMITTER_EMAIL: 'hand@example.org' } });
  try {
    let hasMain = true;
    try {
      execFileSync('git', ['rev-parse', '--verify', 'main'], { cwd: gitdir, stdio: 'ignore' });
    } catch {
      hasMain = false;
    }
    if (hasMain) git('clone', '-q', '--branch', 'main', gitdir, '.');
    else {
      git('init', '-q', '-b', 'main');
      git('remote', 'add', 'origin', gitdir);
    }
    if (opts.replace) git('rm', '-rq', '--ignore-unmatch', '.');
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), content);
    }
    git('add', '-A');
    git('commit', '-qm', message);
    git('push', '-q', 'origin', 'HEAD:main');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Counts the loose objects of a repository. */
export function looseObjects(gitdir: string): number {
  const out = execFileSync('git', ['count-objects', '-v'], { cwd: gitdir, encoding: 'utf8' });
  return Number(/^count: (\d+)/m.exec(out)![1]);
}
