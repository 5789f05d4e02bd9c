import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import { AppError } from '../errors.ts';
import { blobText } from '../storage/blob-text.ts';
import { readBlob } from '../storage/git-history.ts';
import type { Repository } from '../storage/repository.ts';
import type { NodeEntry } from '../store/history-index.ts';
import { commitOf, nodeIdOf, type HistorySources } from './history.ts';
import type { Reader } from './reader.ts';

/** Lines of context around each change, as git shows them. */
const CONTEXT = 3;

type LineType = 'context' | 'added' | 'removed' | 'note';
const TYPES: Record<string, LineType> = { ' ': 'context', '+': 'added', '-': 'removed', '\\': 'note' };

/**
 * `GET …/history/{revision}/diff`: the node's Markdown file in one language at a revision of its
 * history, against the same file at the entry before it (an empty file before its creation, and
 * after its deletion), as a unified diff and as hunks of typed lines, computed by jsdiff.
 */
export async function diffAt(sources: HistorySources & { repo: Repository }, reader: Reader, version: string, slug: string, revision: string, asked: string | undefined) {
  const id = nodeIdOf(sources, reader, version, slug);
  const at = commitOf(sources.history, revision);
  const full = sources.history.commit(at).revision;
  const entries = sources.history.nodeEntries(version, id);
  if (!entries.some((e) => e.commit === at)) {
    throw new AppError('not_in_revision', `Revision ${full.slice(0, 7)} did not change node "${slug}": its history lists the revisions that did`, { resource: 'node', version, slug, revision: full });
  }
  const language = asked ?? sources.catalog.entry(version)?.state?.meta.languages[0] ?? entries.find((e) => e.language !== null)?.language ?? 'en';
  const after = lastOf(entries, language, (c) => c <= at);
  const before = lastOf(entries, language, (c) => c < at);
  const [oldText, newText] = await Promise.all([textOf(sources.repo, before), textOf(sources.repo, after)]);
  const oldName = before?.blob ? `a/${version}/${language}/${before.slug}.md` : '/dev/null';
  const newName = after?.blob ? `b/${version}/${language}/${after.slug}.md` : '/dev/null';
  const patch = structuredPatch(oldName, newName, oldText, newText, undefined, undefined, { context: CONTEXT });
  return {
    version,
    id,
    slug,
    language,
    revision: full,
    previousRevision: before ? sources.history.commit(before.commit).revision : null,
    oldPath: before?.blob ? `${version}/${language}/${before.slug}.md` : null,
    newPath: after?.blob ? `${version}/${language}/${after.slug}.md` : null,
    // As git writes it: the file headers, without the Index line jsdiff adds by default.
    unified: formatPatch(patch, FILE_HEADERS_ONLY),
    hunks: patch.hunks.map((h) => ({
      oldStart: h.oldStart,
      oldLines: h.oldLines,
      newStart: h.newStart,
      newLines: h.newLines,
      lines: h.lines.map((line) => ({ type: TYPES[line[0]] ?? 'context', text: line.slice(1) })),
    })),
  };
}

/** The newest entry of a language's file among the commits `keep` lets through. */
function lastOf(entries: readonly NodeEntry[], language: string, keep: (commit: number) => boolean): NodeEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].language === language && keep(entries[i].commit)) return entries[i];
  return undefined;
}

async function textOf(repo: Repository, entry: NodeEntry | undefined): Promise<string> {
  if (!entry?.blob) return '';
  const blob = entry.blob;
  return blobText(await repo.reading(() => readBlob(repo.gitdir, blob))).text;
}
