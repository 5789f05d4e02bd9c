import { spawn, type ChildProcess } from 'node:child_process';
import { gitEnv } from './cat-file.ts';

/**
 * Runs `git gc` on the repository in the background, so that history gets its deltas without an
 * operator's cron job. Safe while writes go on: git gc keeps unreachable objects younger than its
 * prune window (two weeks), and a write's objects are unreachable only for the moment between its
 * pack and its ref. (`git gc --prune=now` is not safe then, which is why operators must not run it.)
 * One run at a time; a failed run changes nothing and the next one retries. Without the git command
 * there is nothing to run.
 */
export class Housekeeping {
  private child: ChildProcess | null = null;
  private running: Promise<boolean> | null = null;

  constructor(private readonly gitdir: string) {}

  get busy(): boolean {
    return this.running !== null;
  }

  /** Starts `git gc` unless one runs; resolves with whether it succeeded. */
  run(): Promise<boolean> {
    if (this.running) return this.running;
    this.running = new Promise<boolean>((resolve) => {
      // In a process group of its own, so that stop() ends git gc's children too: killed alone, gc
      // leaves its git repack running, which would go on removing packs after the service stopped.
      const child = spawn('git', ['--git-dir', this.gitdir, 'gc', '--quiet'], { stdio: 'ignore', env: gitEnv(), detached: process.platform !== 'win32' });
      this.child = child;
      child.once('error', () => resolve(false));
      child.once('close', (code) => resolve(code === 0));
    }).finally(() => {
      this.child = null;
      this.running = null;
    });
    return this.running;
  }

  /** For a shutdown: stops a run (git leaves the repository as it was) and waits for it to end. */
  async stop(): Promise<void> {
    const running = this.running;
    const child = this.child;
    if (child?.pid !== undefined && process.platform !== 'win32') {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        child.kill('SIGTERM'); // the group is gone already
      }
    } else child?.kill('SIGTERM');
    await running;
  }
}
