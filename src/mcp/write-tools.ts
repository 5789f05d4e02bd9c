import { createNode, deleteNode, reorderNodes, updateNode } from '../commands/nodes.ts';
import { deleteTranslation, putTranslation } from '../commands/translations.ts';
import { createVersion, duplicateVersion, updateVersion } from '../commands/versions.ts';
import type { Deps } from '../deps.ts';
import type { NodeCreateInput } from '../domain/nodes.ts';
import type { Precondition } from '../domain/preconditions.ts';
import type { TranslationInput } from '../domain/translations.ts';
import { language } from '../http/languages.ts';
import { expectedPrecondition } from '../http/preconditions.ts';
import { presentNodeWrite } from '../presenters/nodes.ts';
import { presentVersion } from '../presenters/versions.ts';
import { importJson } from '../routes/import.ts';
import { nodeInput } from '../routes/nodes.ts';
import { openWorkingCopy, requestPublication } from '../routes/publishing.ts';
import { versionInput, type DuplicateBody } from '../routes/versions.ts';
import type { Args, ToolSpec } from './tool.ts';

const LOCK = 'While publishing through pull requests is on, published versions are locked (published_read_only) except for publisher keys.';
const STAMP = (what: string) => ({
  expectedUpdatedAt: { schema: 'Timestamp', description: `Refuse (stale_write) if the ${what} changed after this stamp, as If-Unmodified-Since does over HTTP.` },
});

/** `expectedUpdatedAt` as the REST body's, when given. */
const precondition = (args: Args): Precondition | null =>
  args.expectedUpdatedAt === undefined ? null : expectedPrecondition(args.expectedUpdatedAt, 'arguments/expectedUpdatedAt');

/** `version` and `expectedUpdatedAt` are arguments, not fields of the change. */
const fieldsOf = ({ expectedUpdatedAt: _stamp, ...fields }: Args) => fields;

/**
 * The write tools: the same commands and presenters as the API's writes, with the caller as the
 * commit author, so the lock on published versions and the preconditions hold as over REST. Each
 * successful call is one commit.
 */
export function writeTools({ writer, publisher }: Deps): ToolSpec[] {
  return [
    {
      name: 'create_version',
      title: 'Create a version',
      description: `Creates a version (POST /versions): slug required; label (default the slug), status (default draft), languages (default ["en"], the first is primary), sortOrder, isLatest (only with status published). ${LOCK}`,
      write: true,
      body: 'VersionCreate',
      output: 'Version',
      run: async ({ actor, body: { slug, ...fields } }) => presentVersion(await createVersion(writer, actor!, slug, versionInput(fields, 'arguments'))),
    },
    {
      name: 'update_version',
      title: 'Update a version',
      description: `Changes a version's label, status, languages, sortOrder or isLatest (PATCH /versions/{version}); only the fields given change. isLatest true needs a published version and takes the flag from the previous latest one. ${LOCK}`,
      write: true,
      hints: { idempotent: true },
      params: { version: 'VersionSlug' },
      body: 'VersionPatch',
      output: 'Version',
      run: async ({ actor, args, body }) => presentVersion(await updateVersion(writer, actor!, args.version, versionInput(fieldsOf(body), 'arguments'), precondition(args))),
    },
    {
      name: 'duplicate_version',
      title: 'Duplicate a version',
      description: 'Copies a version with all its nodes and translations under a new slug (a draft unless a status is given; never latest). Node ids stay the same in the copy.',
      write: true,
      params: { version: 'VersionSlug' },
      body: 'VersionDuplicate',
      output: 'VersionEnvelope',
      run: async ({ actor, args, body }) => ({ version: presentVersion(await duplicateVersion(writer, actor!, args.version, body as DuplicateBody)) }),
    },
    {
      name: 'create_node',
      title: 'Create a section or topic',
      description: `Creates a node with its translations (POST /versions/{version}/nodes): translations keyed by language code must include the version's primary language; kind defaults to topic; without sortOrder it goes after its last sibling. ${LOCK}`,
      write: true,
      params: { version: 'VersionSlug' },
      body: 'NodeCreate',
      output: 'NodeWriteResult',
      run: async ({ actor, args, body }) => {
        const { state, slug } = await createNode(writer, actor!, args.version, nodeInput(body as NodeCreateInput, 'arguments'));
        return presentNodeWrite(state, slug);
      },
    },
    {
      name: 'update_node',
      title: 'Update a node',
      description: `Renames (slug), moves (parentSlug, sortOrder), changes kind or icon, or merges translations field by field (a new language needs a title). ${LOCK}`,
      write: true,
      params: { version: 'VersionSlug', slug: 'NodeSlug' },
      body: 'NodePatch',
      output: 'NodeWriteResult',
      run: async ({ actor, args, body }) => {
        const { state, slug } = await updateNode(writer, actor!, args.version, args.slug, nodeInput(fieldsOf(body), 'arguments'), precondition(args));
        return presentNodeWrite(state, slug);
      },
    },
    {
      name: 'delete_node',
      title: 'Delete a node',
      description: `Deletes a node and all its descendants with their translations; answers the removed slugs. ${LOCK}`,
      write: true,
      hints: { destructive: true, idempotent: true },
      params: { version: 'VersionSlug', slug: 'NodeSlug' },
      extra: STAMP('node'),
      output: 'NodeDeleteResult',
      run: async ({ actor, args }) => ({ ok: true, removed: await deleteNode(writer, actor!, args.version, args.slug, precondition(args)) }),
    },
    {
      name: 'put_translation',
      title: 'Write a translation',
      description: `Creates or fully replaces one translation of a node: title required, summary and bodyMd (Markdown) empty when left out. ${LOCK}`,
      write: true,
      hints: { idempotent: true },
      params: { version: 'VersionSlug', slug: 'NodeSlug', lang: 'LanguageCode' },
      body: 'TranslationPut',
      output: 'TranslationPutResult',
      run: async ({ actor, args, body }) => {
        const lang = language(args.lang, 'arguments/lang');
        return { translation: await putTranslation(writer, actor!, args.version, args.slug, lang, fieldsOf(body) as TranslationInput, precondition(args)) };
      },
    },
    {
      name: 'delete_translation',
      title: 'Delete a translation',
      description: `Deletes one translation of a node (never the primary language's); answers the languages left. ${LOCK}`,
      write: true,
      hints: { destructive: true, idempotent: true },
      params: { version: 'VersionSlug', slug: 'NodeSlug', lang: 'LanguageCode' },
      extra: STAMP('translation'),
      output: 'TranslationDeleteResult',
      run: async ({ actor, args }) => {
        const lang = language(args.lang, 'arguments/lang');
        return { ok: true, remainingLanguages: await deleteTranslation(writer, actor!, args.version, args.slug, lang, precondition(args)) };
      },
    },
    {
      name: 'reorder',
      title: 'Move many nodes',
      description: `Puts each named node under parentSlug with the sort key sortOrder, all or nothing; nodes not named keep their keys. Answers every node's place in document order. ${LOCK}`,
      write: true,
      hints: { idempotent: true },
      params: { version: 'VersionSlug' },
      body: 'Reorder',
      output: 'ReorderResult',
      run: async ({ actor, args, body }) => ({ version: args.version, items: await reorderNodes(writer, actor!, args.version, body.items) }),
    },
    {
      name: 'import_version',
      title: 'Import nodes',
      description: `Imports nodes and translations from an export document, given as nodes or as document: { nodes } (not both). mode merge (default) upserts; replace also deletes what the document leaves out. dryRun true reports the diff and writes nothing. The whole document is checked first (invalid_document names each offending node). ${LOCK}`,
      write: true,
      hints: { idempotent: true },
      params: { version: 'VersionSlug' },
      body: 'ImportRequest',
      output: 'ImportResult',
      run: async ({ actor, args, body }) => importJson(writer, actor!, args.version, body, 'arguments'),
    },
    {
      name: 'create_working_copy',
      title: 'Open a working copy',
      description: 'Creates (or returns) the hidden working copy {version}-wip of a published version, to edit and then publish with create_publish_request. Needs publishing through pull requests.',
      write: true,
      hints: { idempotent: true },
      params: { version: 'VersionSlug' },
      output: 'WorkingCopyResult',
      run: async ({ actor, args }) => (await openWorkingCopy(publisher, actor!, args.version)).body,
    },
    {
      name: 'create_publish_request',
      title: 'Request publication',
      description:
        'Opens a pull request on the content repository that publishes a draft or working copy, after checking its content as import-files does. dryRun "true" answers the summary, warnings and files without touching the repository. One open request per target version.',
      write: true,
      hints: { openWorld: true },
      params: { version: 'VersionSlug' },
      query: 'DryRunQuery',
      output: { type: 'object', oneOf: [{ $ref: 'PublishDryRun' }, { $ref: 'PublishRequestEnvelope' }] },
      run: async ({ actor, args }) => (await requestPublication(publisher, actor!, args.version, args.dryRun === 'true')).body,
    },
  ];
}
