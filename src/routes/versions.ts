import { createVersion, deleteVersion, duplicateVersion, updateVersion } from '../commands/versions.ts';
import type { VersionInput } from '../domain/versions.ts';
import type { VersionStatus } from '../domain/types.ts';
import { readerOf } from '../http/actor.ts';
import { listVersions, pageVersions, readableVersion } from '../queries/versions.ts';
import { endpoint } from '../http/api.ts';
import { languageList } from '../http/languages.ts';
import { readPrecondition } from '../http/preconditions.ts';
import { presentVersion } from '../presenters/versions.ts';
import type { Deps } from '../deps.ts';

export type VersionCreateBody = VersionInput & { slug: string };
export type VersionPatchBody = VersionInput & { expectedUpdatedAt?: string };
export type DuplicateBody = { slug: string; label?: string; status?: VersionStatus };

/** A version's fields with the languages in canonical case; `at` is where they came from (`body`, `arguments`), for errors. */
export const versionInput = (fields: VersionInput, at: string): VersionInput =>
  fields.languages ? { ...fields, languages: languageList(fields.languages, `${at}/languages`) } : fields;

export function versionRoutes({ catalog, writer, publisher }: Deps) {
  return [
    endpoint<unknown, { includeWorkingCopies?: string; limit?: string; cursor?: string }>({
      method: 'get',
      path: '/versions',
      operationId: 'listVersions',
      cache: true,
      summary: 'List versions, newest first',
      description:
        'Anonymous callers see published versions; a credential with help:read also sees drafts and archived versions, and hidden working copies with `includeWorkingCopies=true`. With `limit`, the answer is one page and a `Link: <…>; rel="next"` header names the next one (absent on the last page).',
      tag: 'Versions',
      access: 'public',
      query: 'VersionsQuery',
      errors: [],
      responses: { 200: { description: 'The versions', schema: 'VersionList' } },
      handle: ({ actor, query, ctx }) => {
        const all = listVersions(catalog, readerOf(actor), query.includeWorkingCopies === 'true');
        const page = pageVersions(all, query);
        const headers: Record<string, string> = {};
        if (page.next !== null) {
          const next = new URLSearchParams({ ...query, cursor: page.next });
          headers.Link = `<${ctx.path}?${next}>; rel="next"`;
        }
        return { body: page.versions.map(presentVersion), headers };
      },
    }),
    endpoint({
      method: 'get',
      path: '/versions/:version',
      operationId: 'getVersion',
      cache: true,
      summary: 'One version',
      description: 'The version object, as `GET /versions` lists it. Anonymous callers see published versions only (404 otherwise, as for a slug no version has).',
      tag: 'Versions',
      access: 'public',
      errors: ['not_found'],
      responses: { 200: { description: 'The version', schema: 'Version' } },
      handle: ({ actor, params }) => ({ body: presentVersion(readableVersion(catalog, readerOf(actor), params.version)) }),
    }),
    endpoint<VersionCreateBody>({
      method: 'post',
      path: '/versions',
      operationId: 'createVersion',
      summary: 'Create a version',
      tag: 'Versions',
      access: 'write',
      body: 'VersionCreate',
      errors: ['conflict', 'invalid_state'],
      responses: { 200: { description: 'The stored version', schema: 'Version' } },
      handle: async ({ actor, body: { slug, ...fields } }) => {
        const input = versionInput(fields, 'body');
        return { body: presentVersion(await createVersion(writer, actor!, slug, input)) };
      },
    }),
    endpoint<VersionPatchBody>({
      method: 'patch',
      path: '/versions/:version',
      operationId: 'updateVersion',
      summary: "Change a version's label, status, languages, sort order or latest flag",
      description: 'Only supplied fields change. Archiving (or returning to draft) drops `isLatest`; `isLatest: true` needs a published version and takes the flag from the previous latest version in the same commit.',
      tag: 'Versions',
      access: 'write',
      body: 'VersionPatch',
      headers: ['If-Unmodified-Since'],
      errors: ['not_found', 'stale_write', 'invalid_state', 'language_in_use'],
      responses: { 200: { description: 'The updated version', schema: 'Version' } },
      handle: async ({ ctx: http, actor, params, body: { expectedUpdatedAt, ...fields } }) => {
        const input = versionInput(fields, 'body');
        const pre = readPrecondition(http, expectedUpdatedAt);
        return { body: presentVersion(await updateVersion(writer, actor!, params.version, input, pre)) };
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
      errors: ['not_found', 'request_open'],
      responses: { 200: { description: 'Deleted', schema: 'Ok' } },
      handle: async ({ actor, params }) => {
        await deleteVersion(writer, actor!, params.version, publisher.pendingFrom);
        return { body: { ok: true } };
      },
    }),
    endpoint<DuplicateBody>({
      method: 'post',
      path: '/versions/:version/duplicate',
      operationId: 'duplicateVersion',
      summary: 'Copy a version with all its nodes and translations under a new slug',
      description: 'The copy is a draft unless a status is given, and is never latest. Node ids stay the same in the copy, so a node can be followed across versions.',
      tag: 'Versions',
      access: 'write',
      body: 'VersionDuplicate',
      errors: ['not_found', 'conflict'],
      responses: { 200: { description: 'The new version', schema: 'VersionEnvelope' } },
      handle: async ({ actor, params, body }) => {
        const copy = await duplicateVersion(writer, actor!, params.version, body);
        return { body: { version: presentVersion(copy) } };
      },
    }),
  ];
}
