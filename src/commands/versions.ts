import { demoteLatest, duplicateVersion as copyOf, newVersion, patchVersion, type VersionInput } from '../domain/versions.ts';
import type { Precondition } from '../domain/preconditions.ts';
import type { VersionState, VersionStatus } from '../domain/types.ts';
import { AppError, notFound } from '../errors.ts';
import { requestOpen, type PublishRequest } from '../publishing/requests.ts';
import { workingCopySlug } from '../publishing/working-copies.ts';
import type { Author, VersionChange, WriteContext, Writer } from '../store/writer.ts';

/** Besides the version written, the version that loses "latest" when this one takes it. */
export function withLatestMoved(ctx: WriteContext, next: VersionState, previous: VersionState | null): VersionChange[] {
  const changes: VersionChange[] = [{ slug: next.slug, after: next }];
  const latest = previous?.meta.isLatest ? null : ctx.readLatest();
  if (next.meta.isLatest && latest && latest.slug !== next.slug) changes.push({ slug: latest.slug, after: demoteLatest(latest, ctx.now) });
  return changes;
}

function describeChange(input: VersionInput): string {
  const parts = Object.entries(input).filter(([, v]) => v !== undefined).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
  return parts.length > 0 ? `: ${parts.join(', ')}` : '';
}

export function createVersion(writer: Writer, author: Author, slug: string, input: VersionInput): Promise<VersionState> {
  return writer.writeVersions([slug], author, (ctx) => {
    if (ctx.exists(slug)) throw new AppError('conflict', `Version "${slug}" already exists`, { field: 'body/slug', slug });
    const state = newVersion(slug, input, ctx.now);
    return { changes: withLatestMoved(ctx, state, null), message: `Create version ${slug}${describeChange(input)}`, result: state };
  });
}

/** Only the fields given change; taking `isLatest` moves it from the previous latest version in the same commit. */
export function updateVersion(writer: Writer, author: Author, slug: string, input: VersionInput, pre: Precondition | null): Promise<VersionState> {
  return writer.writeVersions([slug], author, (ctx) => {
    const state = ctx.read(slug);
    const next = patchVersion(state, input, pre, ctx.now);
    return { changes: withLatestMoved(ctx, next, state), message: `Update version ${slug}${describeChange(input)}`, result: next };
  });
}

/** Deletes a version, and its working copy with it: a copy of nothing could never be published. */
export function deleteVersion(writer: Writer, author: Author, slug: string, pendingFrom: (slug: string) => PublishRequest | undefined = () => undefined): Promise<void> {
  const wip = workingCopySlug(slug);
  return writer.writeVersions([slug, wip], author, (ctx) => {
    // A version whose stored data is broken can still be deleted, to recover.
    if (!ctx.exists(slug)) throw notFound('version', `No version "${slug}"`, { version: slug });
    const changes: VersionChange[] = [{ slug, after: null }];
    if (ctx.exists(wip) && ctx.peek(wip)?.meta.workingCopyOf === slug) changes.push({ slug: wip, after: null });
    // A pull request opened from what is deleted would be merged into a repository the service no longer matches.
    for (const { slug: gone } of changes) {
      const open = pendingFrom(gone);
      if (open) throw requestOpen(open, gone, `deleting ${slug}`);
    }
    return { changes, message: `Delete version ${slug}${changes.length > 1 ? ` and its working copy ${wip}` : ''}`, result: undefined };
  });
}

export function duplicateVersion(writer: Writer, author: Author, source: string, target: { slug: string; label?: string; status?: VersionStatus }): Promise<VersionState> {
  return writer.writeVersions([source, target.slug], author, (ctx) => {
    const from = ctx.read(source);
    if (ctx.exists(target.slug)) throw new AppError('conflict', `Version "${target.slug}" already exists`, { field: 'body/slug', slug: target.slug });
    const state = copyOf(from, target.slug, target, ctx.now);
    return { changes: [{ slug: target.slug, after: state, copyOf: source }], message: `Duplicate version ${source} as ${target.slug}`, result: state };
  });
}
