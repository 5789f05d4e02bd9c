import { parseVersionFile, VERSION_FILE } from '../content/version-file.ts';
import { ProblemList } from '../content/problems.ts';
import { drainInSlices } from '../slices.ts';
import { readObjects, logOf, versionFilesAt, type LoggedCommit } from '../storage/git-history.ts';
import { entriesOf, type FileChange, type NodeFacts } from './history-changes.ts';
import type { CommitRecord } from './history-file.ts';
import { derivedId } from './load.ts';

/*
 * The history index read back from git log: for a data directory that has none (written before it
 * existed, or restored from a backup, which leaves it out), or whose file is behind main. Node ids
 * come from each commit's version.json, so renames are followed as they are for new commits.
 */

/** Commits whose version.json files are read with one git process. */
const BATCH = 200;
/** How long one piece of the work holds the event loop. */
const SLICE_MS = 8;

/** A version's nodes at one commit, by id and by slug. */
interface Table {
  byId: Map<string, NodeFacts>;
  bySlug: Map<string, string>;
}

const EMPTY: Table = { byId: new Map(), bySlug: new Map() };

function tableOf(version: string, text: string): Table | null {
  const parsed = parseVersionFile(VERSION_FILE, text, new ProblemList());
  if (parsed === null) return null;
  const idOf = (slug: string) => parsed.nodes.get(slug)?.id ?? derivedId(version, slug);
  const byId = new Map<string, NodeFacts>();
  const bySlug = new Map<string, string>();
  for (const n of parsed.nodes.values()) {
    const id = idOf(n.slug);
    byId.set(id, { slug: n.slug, kind: n.kind, parentId: n.parentSlug === null ? null : idOf(n.parentSlug), sortOrder: n.sortOrder, icon: n.icon });
    bySlug.set(n.slug, id);
  }
  return { byId, bySlug };
}

const TRANSLATION = /^([^/.][^/]*)\/([^/]+)\.md$/;

/**
 * The records of the commits after `since` (all when null) up to `head`, oldest first. git reads and
 * inflates in its own process; the parsing here gives the event loop back every few milliseconds.
 */
export async function backfill(gitdir: string, head: string, since: string | null): Promise<CommitRecord[]> {
  const log = await logOf(gitdir, head, since);
  const tables = new Map<string, Table>();
  if (since !== null) for (const [version, text] of await versionFilesAt(gitdir, since)) tables.set(version, tableOf(version, text) ?? EMPTY);
  const out: CommitRecord[] = [];
  for (let at = 0; at < log.length; at += BATCH) {
    const batch = log.slice(at, at + BATCH);
    const wanted = batch.flatMap((c) => c.paths.filter((p) => p.blob !== null && p.path.endsWith(`/${VERSION_FILE}`) && p.path.split('/').length === 2).map((p) => p.blob!));
    const texts = await readObjects(gitdir, wanted);
    out.push(...(await drainInSlices(records(batch, tables, (oid) => texts.get(oid)!.bytes.toString('utf8')), SLICE_MS)));
  }
  return out;
}

function* records(batch: readonly LoggedCommit[], tables: Map<string, Table>, text: (oid: string) => string): Generator<void, CommitRecord[]> {
  const out: CommitRecord[] = [];
  for (const commit of batch) {
    const byVersion = new Map<string, LoggedCommit['paths']>();
    for (const p of commit.paths) {
      const slash = p.path.indexOf('/');
      if (slash < 0) continue;
      const version = p.path.slice(0, slash);
      const list = byVersion.get(version) ?? [];
      list.push({ ...p, path: p.path.slice(slash + 1) });
      byVersion.set(version, list);
    }
    const versions: CommitRecord['versions'] = [];
    for (const [version, paths] of byVersion) {
      const before = tables.get(version) ?? EMPTY;
      let after = before;
      let change: 'created' | 'updated' | 'deleted' = 'updated';
      const file = paths.find((p) => p.path === VERSION_FILE);
      if (file?.status === 'D') {
        after = EMPTY;
        change = 'deleted';
      } else if (file !== undefined) {
        after = tableOf(version, text(file.blob!)) ?? before;
        if (file.status === 'A') change = 'created';
      }
      tables.set(version, after);
      const files = new Map<string, Map<string, FileChange>>();
      const blobs = new Map<string, string | null>();
      for (const p of paths) {
        const m = TRANSLATION.exec(p.path);
        if (!m) continue;
        const [, language, slug] = m;
        const id = p.status === 'D' ? before.bySlug.get(slug) : after.bySlug.get(slug);
        if (id === undefined) continue;
        const byLang = files.get(id) ?? new Map<string, FileChange>();
        const seen = byLang.get(language);
        const now: FileChange = p.status === 'A' ? 'added' : p.status === 'D' ? 'deleted' : 'modified';
        // A renamed node's file: deleted at its old path, added at its new one.
        byLang.set(language, seen !== undefined && seen !== now ? 'modified' : now);
        files.set(id, byLang);
        if (p.status !== 'D') blobs.set(`${language}/${slug}`, p.blob);
      }
      const entries = entriesOf(before.byId, after.byId, files, (language, slug) => blobs.get(`${language}/${slug}`) ?? null);
      versions.push({ version, change, entries });
      yield;
    }
    out.push({ revision: commit.revision, author: commit.author, at: new Date(commit.time * 1000).toISOString(), message: commit.message, versions });
  }
  return out;
}
