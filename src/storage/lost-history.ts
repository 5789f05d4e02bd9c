import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { gitEnv } from './cat-file.ts';

/** A commit no other commit follows: where a branch could have pointed. */
export interface CommitTip {
  oid: string;
  /** Committer time, ISO. */
  date: string;
  subject: string;
}

/** Whether the repository holds any object: a pack, or a loose object folder with a file in it. */
export function hasObjects(gitdir: string): boolean {
  const objects = join(gitdir, 'objects');
  let names: string[];
  try {
    names = fs.readdirSync(objects);
  } catch {
    return false;
  }
  for (const name of names) {
    if (name === 'pack') {
      if (fs.readdirSync(join(objects, name)).some((f) => f.endsWith('.pack'))) return true;
    } else if (/^[0-9a-f]{2}$/.test(name) && fs.readdirSync(join(objects, name)).length > 0) return true;
  }
  return false;
}

/**
 * The commits of the repository that no other commit has as a parent, newest first, read with the
 * system git (null when it cannot be run): after a branch was deleted, the newest of them is almost
 * always where it pointed. Used only to say how to recover, never to recover by itself.
 */
export function findCommitTips(gitdir: string): CommitTip[] | null {
  try {
    const run = (args: string[], input?: string) => execFileSync('git', ['--git-dir', gitdir, ...args], { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['pipe', 'pipe', 'ignore'], env: gitEnv() });
    const commits = run(['cat-file', '--batch-all-objects', '--batch-check=%(objecttype) %(objectname)'])
      .split('\n')
      .filter((l) => l.startsWith('commit '))
      .map((l) => l.slice(7));
    if (commits.length === 0) return [];
    const rows = run(['log', '--no-walk=unsorted', '--stdin', '--format=%H %ct %P%x00%s'], `${commits.join('\n')}\n`)
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [head, subject] = line.split('\0');
        const [oid, time, ...parents] = head.trim().split(' ');
        return { oid, time: Number(time), parents, subject };
      });
    const followed = new Set(rows.flatMap((r) => r.parents));
    return rows
      .filter((r) => !followed.has(r.oid))
      .sort((a, b) => b.time - a.time)
      .map((r) => ({ oid: r.oid, date: new Date(r.time * 1000).toISOString(), subject: r.subject }));
  } catch {
    return null;
  }
}

/** What to tell an operator whose repository has objects but no `main`. */
export function missingBranchMessage(gitdir: string): string {
  const tips = findCommitTips(gitdir);
  const lead = `${gitdir} holds history but has no branch main (refs/heads/main is missing): the service will not start over on top of it.`;
  if (tips === null || tips.length === 0) {
    return `${lead} Find the last good commit with \`git --git-dir=${gitdir} fsck --lost-found\` (or a backup) and restore the branch with \`git --git-dir=${gitdir} update-ref refs/heads/main <commit>\`.`;
  }
  const [newest, ...others] = tips;
  const more = others.length > 0 ? ` Other commits without successors: ${others.slice(0, 3).map((t) => `${t.oid} (${t.date})`).join(', ')}${others.length > 3 ? ', …' : ''}.` : '';
  return `${lead} Its newest commit without successors is ${newest.oid} (${newest.date}, "${newest.subject}"); check it with \`git --git-dir=${gitdir} log ${newest.oid}\`, then restore the branch with \`git --git-dir=${gitdir} update-ref refs/heads/main ${newest.oid}\`.${more}`;
}
