import { isVersionSlug } from '../domain/names.ts';
import type { VersionState } from '../domain/types.ts';
import { duplicateVersion } from '../domain/versions.ts';
import { AppError, notFound } from '../errors.ts';
import type { Catalog } from '../store/catalog.ts';
import type { Author, Writer } from '../store/writer.ts';
import { requestOpen, type PublishRequest } from './requests.ts';

/** The slug of a version's working copy. */
export const workingCopySlug = (version: string) => `${version}-wip`;

/** The working copy of a published version: the existing one, or a new hidden deep copy (one commit). */
export function createWorkingCopy(writer: Writer, version: string, author: Author): Promise<{ state: VersionState; existed: boolean }> {
  const slug = workingCopySlug(version);
  if (!isVersionSlug(slug)) throw new AppError('invalid_state', `The working copy's slug "${slug}" would be too long; version slugs of working copies are limited to 60 characters`, { version });
  return writer.writeVersions<{ state: VersionState; existed: boolean }>([version, slug], author, (ctx) => {
    const source = ctx.read(version);
    if (source.meta.workingCopyOf !== null) throw new AppError('invalid_state', `"${version}" is itself a working copy`, { version });
    if (source.meta.status !== 'published') throw new AppError('invalid_state', `Version "${version}" is ${source.meta.status}; working copies are for published versions (edit a draft directly)`, { version, status: source.meta.status });
    if (ctx.exists(slug)) {
      const existing = ctx.read(slug);
      if (existing.meta.workingCopyOf !== version) throw new AppError('conflict', `Version "${slug}" exists and is not the working copy of "${version}"`, { slug });
      return { changes: [], message: '', result: { state: existing, existed: true } };
    }
    const copy = duplicateVersion(source, slug, { label: source.meta.label }, ctx.now);
    const state = { ...copy, meta: { ...copy.meta, hidden: true, workingCopyOf: version } };
    return { changes: [{ slug, after: state, copyOf: version }], message: `Create working copy ${slug} of ${version}`, result: { state, existed: false } };
  });
}

/** Deletes a working copy, named by its own slug or its original's; refused while a publish request for it is open. */
export function discardWorkingCopy(
  writer: Writer,
  catalog: Catalog,
  openRequestFor: (slug: string) => PublishRequest | undefined,
  version: string,
  author: Author,
): Promise<string> {
  const named = catalog.entry(version)?.state;
  const slug = named?.meta.workingCopyOf ? version : workingCopySlug(version);
  // Checked under the copy's lock, so two discards (or a discard and an import) cannot both act.
  return writer.writeVersions([slug], author, (ctx) => {
    const copy = ctx.exists(slug) ? ctx.read(slug) : null;
    if (!copy || copy.meta.workingCopyOf === null) throw notFound('version', `No working copy of "${version}"`, { version });
    const open = openRequestFor(slug);
    if (open) throw requestOpen(open, slug, 'discarding the working copy');
    return { changes: [{ slug, after: null }], message: `Discard working copy ${slug}`, result: slug };
  });
}
