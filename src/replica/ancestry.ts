import { execFile } from 'node:child_process';
import { gitEnv } from '../storage/cat-file.ts';

/** Answers kept: a client that reads its own write asks about the same pair a few times at most. */
const KEPT = 1024;

/**
 * Whether commit `older` is in the history of `newer` (or is it), by `git merge-base --is-ancestor`
 * in `gitdir`; false when the repository does not hold `older` (a revision not fetched yet, or made
 * up). Answers are kept by pair: commits never change their parents.
 */
export function ancestry(gitdir: string): (older: string, newer: string) => Promise<boolean> {
  const known = new Map<string, boolean>();
  return (older, newer) => {
    if (older === newer) return Promise.resolve(true);
    const pair = `${older}|${newer}`;
    const kept = known.get(pair);
    if (kept !== undefined) return Promise.resolve(kept);
    return new Promise((resolve) => {
      execFile('git', ['--git-dir', gitdir, 'merge-base', '--is-ancestor', older, newer], { env: gitEnv() }, (err) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        // 0: an ancestor; 1: not one. Anything else (an unknown commit) is no answer to keep: it may be fetched later.
        if (code === 0 || code === 1) {
          if (known.size >= KEPT) known.clear();
          known.set(pair, code === 0);
        }
        resolve(code === 0);
      });
    });
  };
}
