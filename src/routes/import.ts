import { importDocument, importFiles } from '../commands/import.ts';
import { MAX_CONTENT_BYTES, type IncomingFile } from '../content/file-import.ts';
import type { ImportMode, ImportNode, OldAddresses } from '../domain/import.ts';
import { endpoint } from '../http/api.ts';
import { byLanguage } from '../http/languages.ts';
import { presentVersion } from '../presenters/versions.ts';
import type { Deps } from '../deps.ts';
import type { Author, Writer } from '../store/writer.ts';

/** Raw request bodies of imports may be this large; the content inside is limited separately. */
export const IMPORT_BODY_LIMIT = 3 * MAX_CONTENT_BYTES;

export interface ImportBody extends OldAddresses {
  mode?: ImportMode;
  dryRun?: boolean;
  nodes?: ImportNode[];
  document?: { nodes: ImportNode[] } & OldAddresses;
}

export interface FilesBody {
  files: IncomingFile[];
  dryRun?: boolean;
}

/**
 * A JSON import as the API answers it, for the route and the tool server alike; `at` is where the
 * request came from (`body`, `arguments`), for errors.
 */
export async function importJson(writer: Writer, author: Author, version: string, request: ImportBody, at: string) {
  // ImportRequest's schema takes exactly one of the two.
  const given = (request.nodes ?? request.document?.nodes)!;
  // Errors name the node where the request has it: body/nodes/3, or body/document/nodes/3.
  const where = request.nodes ? `${at}/nodes` : `${at}/document/nodes`;
  const nodes = given.map((n, i) => (n.translations ? { ...n, translations: byLanguage(n.translations, `${where}/${i}/translations`) } : n));
  const mode = request.mode ?? 'merge';
  const dryRun = request.dryRun === true;
  // Old addresses travel beside the nodes, as export writes them: at the top, or in the document.
  const old = request.nodes ? request : request.document!;
  const { diff, state } = await importDocument(writer, author, version, nodes, mode, dryRun, where, { redirects: old.redirects, removed: old.removed });
  return { dryRun, mode, diff, version: presentVersion(state) };
}

/** JSON import and content-file import. A real run is one commit; a dry run writes nothing. */
export function importRoutes({ writer, publisher, config }: Deps) {
  return [
    endpoint<ImportBody>({
      method: 'post',
      path: '/versions/:version/import',
      operationId: 'importDocument',
      summary: 'Import nodes and translations from an export document',
      description:
        '`merge` upserts nodes and translations; `replace` also deletes those the document omits. Nodes are given as `nodes` or as `document: { nodes }` (an export document as it is). The whole document is checked first: any unknown parent, duplicate slug, cycle, language the version does not enable or missing primary translation refuses it, naming each offending `{ slug, language }`.',
      tag: 'Import and export',
      access: 'write',
      body: 'ImportRequest',
      bodyLimit: IMPORT_BODY_LIMIT,
      errors: ['not_found', 'invalid_document'],
      responses: { 200: { description: 'What changed (or would change, in a dry run)', schema: 'ImportResult' } },
      handle: async ({ actor, params, body }) => ({ body: await importJson(writer, actor!, params.version, body, 'body') }),
    }),
    endpoint<FilesBody, { dryRun?: string }>({
      method: 'post',
      path: '/versions/:version/import-files',
      operationId: 'importFiles',
      summary: "Replace a version's content with content files (version.json and {lang}/{slug}.md)",
      description:
        'Paths may be repository-relative: the folder holding the one `version.json` is the version\'s folder. Every problem is reported at once (`invalid_content`); a `status` of `draft` or `archived` in version.json is a warning, since a real run publishes the version. A real run replaces the content in one commit, publishes the version (creating it if needed) and applies `isLatest` from version.json. At most 2,000 files and 10 MB of content.',
      tag: 'Import and export',
      access: 'write',
      query: 'DryRunQuery',
      body: 'ImportFilesRequest',
      bodyLimit: IMPORT_BODY_LIMIT,
      errors: ['invalid_content', 'limit_exceeded'],
      responses: { 200: { description: 'The summary (or what a real run would do)', schema: 'ImportFilesResult' } },
      handle: async ({ actor, params, query, body }) => {
        const dryRun = query.dryRun === 'true' || body.dryRun === true;
        return { body: await importFiles({ writer, publisher, portalPath: config.portal.path }, actor!, params.version, body.files, dryRun) };
      },
    }),
  ];
}
