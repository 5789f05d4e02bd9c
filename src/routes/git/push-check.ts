import { randomId } from '../../clock.ts';
import { readIncomingFiles } from '../../content/incoming.ts';
import type { ContentProblem } from '../../content/problems.ts';
import type { VersionState } from '../../domain/types.ts';
import { demoteLatest } from '../../domain/versions.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../http/actor.ts';
import { formatProblem } from '../../store/load.ts';
import type { Author, VersionChange } from '../../store/writer.ts';
import type { PushReply } from './push-reply.ts';
import { changedFolders, type PathProblem, type PushedFolder } from './pushed-tree.ts';
import type { Quarantine } from './quarantine.ts';

/** Problems listed to the pusher at most; more are counted. */
const MAX_LISTED = 100;

const short = (oid: string) => oid.slice(0, 7);

/** What a push that passed its checks changes. */
export interface Checked {
  folders: PushedFolder[];
  /** The version marked latest when the push was checked. */
  latest: string | null;
}

/** The pushed commit checked: a fast-forward of main, and every changed version folder valid and writable by `actor`. A string: why it is refused. */
export async function checkPush(deps: Deps, q: Quarantine, actor: Actor, old: string | null, pushed: string, reply: PushReply): Promise<Checked | string> {
  const type = (await q.git(['cat-file', '-t', pushed], `${short(pushed)} is not in the pushed objects`)).toString().trim();
  if (type !== 'commit') return `${short(pushed)} is a ${type}, not a commit: main points at a commit`;
  // Every object the new commit reaches is there, in the repository or the pack.
  await q.git(['rev-list', '--objects', '--quiet', pushed, '--not', '--all'], 'the push lacks objects the commit needs');
  if (old !== null) {
    const ancestor = await q.git(['merge-base', '--is-ancestor', old, pushed], '').then(
      () => true,
      () => false,
    );
    if (!ancestor) return `non-fast-forward: ${short(pushed)} does not build on main (${short(old)}); git pull (not a rebase of what main has), then push again`;
  }
  const { folders, problems } = await changedFolders(q, old, pushed);
  const { catalog, config } = deps;
  const now = deps.clock.stamp();
  const all: PathProblem[] = [...problems];
  const warnings: ContentProblem[] = [];
  const incoming = new Map<string, VersionState>();
  for (const folder of folders) {
    const current = catalog.entry(folder.slug)?.state ?? null;
    try {
      const read = readIncomingFiles(folder.files, folder.slug, current, now, randomId, undefined, config.portal.path);
      incoming.set(folder.slug, read.incoming);
      warnings.push(...read.warnings);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'invalid_content') throw err;
      all.push(...(err.data.errors as ContentProblem[]));
      warnings.push(...((err.data.warnings as ContentProblem[] | undefined) ?? []));
    }
  }
  const latest = catalog.latest();
  for (const [slug, state] of incoming) {
    const lockProblem = mayWrite(deps, actor, { slug, after: state });
    if (lockProblem) all.push({ path: `${slug}/`, message: lockProblem });
    // As import-files does: a version made latest takes the mark from the one that had it, a change to that one too.
    if (state.meta.isLatest && latest !== null && latest.slug !== slug && !(incoming.has(latest.slug) && !incoming.get(latest.slug)!.meta.isLatest)) {
      const demoted = mayWrite(deps, actor, { slug: latest.slug, after: demoteLatest(latest, now) });
      if (demoted) all.push({ path: `${slug}/version.json`, message: `"isLatest": true takes the mark from ${latest.slug}, which changes it: ${demoted}` });
    }
  }
  for (const w of warnings.slice(0, MAX_LISTED)) reply.say(`warning: ${formatProblem(w)}`);
  if (all.length > 0) {
    for (const p of all.slice(0, MAX_LISTED)) reply.say(formatProblem(p), true);
    if (all.length > MAX_LISTED) reply.say(`… and ${all.length - MAX_LISTED} more`, true);
    reply.say(`${all.length} problem(s): the push is refused whole; main is unchanged (${old === null ? 'empty' : short(old)})`, true);
    return `${all.length} problem(s) in the push (listed above as path:line: message); fix them in a new commit and push again`;
  }
  return { folders, latest: latest?.slug ?? null };
}

/** The lock on published versions, as a write through the API meets it; null when `actor` may make the change. */
function mayWrite(deps: Deps, actor: Author, change: VersionChange): string | null {
  try {
    deps.writer.checkMayWrite(actor, change);
    return null;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return typeof err.data.hint === 'string' ? `${err.message} (${err.data.hint})` : err.message;
  }
}
