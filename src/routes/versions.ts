import { duplicateVersion, demoteLatest, newVersion, patchVersion, type VersionInput } from '../domain/versions.ts';
import type { VersionState, VersionStatus } from '../domain/types.ts';
import { AppError, notFound } from '../errors.ts';
import { canReadUnpublished } from '../http/actor.ts';
import { endpoint } from '../http/api.ts';
import { languageList } from '../http/languages.ts';
import { readPrecondition } from '../http/preconditions.ts';
import type { WriteContext, VersionChange } from '../store/writer.ts';
import { presentVersion } from '../presenters/versions.ts';
import { workingCopySlug } from '../publishing/working-copies.ts';
import type { Deps } from './deps.ts';

const VERSION_ERRORS = { 400: { description: 'Invalid body', schema: 'Error' }, 401: { description: 'No or invalid credential', schema: 'Error' }, 403: { description: 'The key lacks help:write', schema: 'Error' } };

type VersionBody = VersionInput & { slug: string; expectedUpdatedAt?: string };

/** Besides the version written, the version that loses "latest" when this one takes it. */
function withLatestMoved(ctx: WriteContext, next: VersionState, previous: VersionState | null): VersionChange[] {
  const changes: VersionChange[] = [{ slug: next.slug, after: next }];
  const latest = previous?.meta.isLatest ? null : ctx.readLatest();
  if (next.meta.isLatest && latest && latest.slug !== next.slug) changes.push({ slug: latest.slug, after: demoteLatest(latest, ctx.now) });
  return changes;
}

function describeChange(input: VersionInput): string {
  const parts = Object.entries(input).filter(([, v]) => v !== undefined).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
  return parts.length > 0 ? `: ${parts.join(', ')}` : '';
}

export function versionRoutes({ catalog, writer }: Deps) {
  const normalize = (body: VersionInput, field = 'body/languages'): VersionInput =>
    body.languages ? { ...body, languages: languageList(body.languages, field) } : body;

  return [
    endpoint<unknown, { includeWorkingCopies?: string }>({
      method: 'get',
      path: '/versions',
      operationId: 'listVersions',
      cache: true,
      summary: 'List versions, newest first',
      description: 'Anonymous callers see published versions; a credential with help:read also sees drafts and archived versions, and hidden working copies with `includeWorkingCopies=true`.',
      tag: 'Versions',
      access: 'public',
      query: 'VersionsQuery',
      responses: { 200: { description: 'The versions', schema: 'VersionList' }, 401: VERSION_ERRORS[401] },
      handle: ({ actor, query }) => {
        const all = canReadUnpublished(actor);
        const withHidden = all && query.includeWorkingCopies === 'true';
        const list = catalog
          .all()
          .flatMap((e) => (e.state ? [e.state] : []))
          .filter((s) => (all || s.meta.status === 'published') && (withHidden || !s.meta.hidden))
          .sort((a, b) => b.meta.createdAt.localeCompare(a.meta.createdAt) || a.slug.localeCompare(b.slug));
        return { body: list.map(presentVersion) };
      },
    }),
    endpoint<VersionBody>({
      method: 'post',
      path: '/versions',
      operationId: 'createVersion',
      summary: 'Create a version',
      tag: 'Versions',
      access: 'write',
      body: 'VersionCreate',
      responses: { 200: { description: 'The stored version', schema: 'Version' }, ...VERSION_ERRORS, 409: { description: '`conflict`: the slug exists; `invalid_state`: isLatest without status published', schema: 'Error' } },
      handle: async ({ actor, body: { slug, ...fields } }) => {
        const input = normalize(fields);
        const created = await writer.writeVersions([slug], actor!, (ctx) => {
          if (ctx.exists(slug)) throw new AppError('conflict', `Version "${slug}" already exists`, { field: 'slug', slug });
          const state = newVersion(slug, input, ctx.now);
          return { changes: withLatestMoved(ctx, state, null), message: `Create version ${slug}${describeChange(input)}`, result: state };
        });
        return { body: presentVersion(created) };
      },
    }),
    endpoint<Omit<VersionBody, 'slug'>>({
      method: 'patch',
      path: '/versions/:version',
      operationId: 'updateVersion',
      summary: "Change a version's label, status, languages, sort order or latest flag",
      description: 'Only supplied fields change. Archiving (or returning to draft) drops `isLatest`; `isLatest: true` needs a published version and takes the flag from the previous latest version in the same commit.',
      tag: 'Versions',
      access: 'write',
      body: 'VersionPatch',
      headers: ['If-Unmodified-Since'],
      responses: {
        200: { description: 'The updated version', schema: 'Version' },
        ...VERSION_ERRORS,
        404: { description: 'Unknown version', schema: 'Error' },
        409: { description: '`stale_write`, `invalid_state` or `language_in_use`', schema: 'Error' },
      },
      handle: async ({ ctx: http, actor, params, body: { expectedUpdatedAt, ...fields } }) => {
        const input = normalize(fields);
        const pre = readPrecondition(http, expectedUpdatedAt);
        const updated = await writer.writeVersions([params.version], actor!, (ctx) => {
          const state = ctx.read(params.version);
          const next = patchVersion(state, input, pre, ctx.now);
          return { changes: withLatestMoved(ctx, next, state), message: `Update version ${params.version}${describeChange(input)}`, result: next };
        });
        return { body: presentVersion(updated) };
      },
    }),
    endpoint({
      method: 'delete',
      path: '/versions/:version',
      operationId: 'deleteVersion',
      summary: 'Delete a version with all its nodes and translations',
      description: 'The version disappears from the head commit; its history stays in the repository.',
      tag: 'Versions',
      access: 'write',
      responses: { 200: { description: 'Deleted', schema: 'Ok' }, 401: VERSION_ERRORS[401], 403: VERSION_ERRORS[403], 404: { description: 'Unknown version', schema: 'Error' } },
      handle: async ({ actor, params }) => {
        const wip = workingCopySlug(params.version);
        await writer.writeVersions([params.version, wip], actor!, (ctx) => {
          // A version whose stored data is broken can still be deleted, to recover.
          if (!ctx.exists(params.version)) throw notFound('version', `No version "${params.version}"`, { version: params.version });
          const changes: VersionChange[] = [{ slug: params.version, after: null }];
          // Its working copy goes with it: a copy of nothing could never be published.
          const copy = ctx.exists(wip) ? catalog.entry(wip)?.state : undefined;
          if (copy?.meta.workingCopyOf === params.version) changes.push({ slug: wip, after: null });
          return { changes, message: `Delete version ${params.version}${changes.length > 1 ? ` and its working copy ${wip}` : ''}`, result: undefined };
        });
        return { body: { ok: true } };
      },
    }),
    endpoint<{ slug: string; label?: string; status?: VersionStatus }>({
      method: 'post',
      path: '/versions/:version/duplicate',
      operationId: 'duplicateVersion',
      summary: 'Copy a version with all its nodes and translations under a new slug',
      description: 'The copy is a draft unless a status is given, and is never latest. Node ids stay the same in the copy, so a node can be followed across versions.',
      tag: 'Versions',
      access: 'write',
      body: 'VersionDuplicate',
      responses: {
        200: { description: 'The new version', schema: 'VersionEnvelope' },
        ...VERSION_ERRORS,
        404: { description: 'Unknown source version', schema: 'Error' },
        409: { description: '`conflict`: the target slug exists', schema: 'Error' },
      },
      handle: async ({ actor, params, body }) => {
        const copy = await writer.writeVersions([params.version, body.slug], actor!, (ctx) => {
          const source = ctx.read(params.version);
          if (ctx.exists(body.slug)) throw new AppError('conflict', `Version "${body.slug}" already exists`, { field: 'slug', slug: body.slug });
          const state = duplicateVersion(source, body.slug, body, ctx.now);
          return { changes: [{ slug: body.slug, after: state, copyOf: params.version }], message: `Duplicate version ${params.version} as ${body.slug}`, result: state };
        });
        return { body: { version: presentVersion(copy) } };
      },
    }),
  ];
}
