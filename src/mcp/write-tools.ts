import { createNode, deleteNode, reorderNodes, updateNode } from '../commands/nodes.ts';
import { deleteTranslation, putTranslation } from '../commands/translations.ts';
import { createVersion, deleteVersion, duplicateVersion, updateVersion } from '../commands/versions.ts';
import type { Deps } from '../deps.ts';
import type { NodeCreateInput } from '../domain/nodes.ts';
import type { Precondition } from '../domain/preconditions.ts';
import type { TranslationInput } from '../domain/translations.ts';
import { readerOf } from '../http/actor.ts';
import { language } from '../http/languages.ts';
import { expectedPrecondition } from '../http/preconditions.ts';
import { presentNodeWrite } from '../presenters/nodes.ts';
import { presentVersion } from '../presenters/versions.ts';
import { versionByRef } from '../queries/versions.ts';
import { importJson } from '../routes/import.ts';
import { nodeInput } from '../routes/nodes.ts';
import { versionInput, type DuplicateBody } from '../routes/versions.ts';
import type { Catalog } from '../store/catalog.ts';
import { publishingTools } from './publishing-tools.ts';
import type { Args, ToolSpec } from './tool.ts';

const STAMP = (what: string) => ({
  expectedUpdatedAt: { schema: 'Timestamp', description: `Refuse (stale_write) if the ${what} changed after this stamp.` },
});

/** `expectedUpdatedAt` as the REST body's, when given. */
const precondition = (args: Args): Precondition | null =>
  args.expectedUpdatedAt === undefined ? null : expectedPrecondition(args.expectedUpdatedAt, 'arguments/expectedUpdatedAt');

/** `version` and `expectedUpdatedAt` are arguments, not fields of the change. */
const fieldsOf = ({ expectedUpdatedAt: _stamp, minorEdit: _minor, ...fields }: Args) => fields;

/**
 * A write to `latest` writes the version marked latest when the call is made, as an agent that read
 * `latest` expects; the answer names it by its own slug. Only deleting refuses it (delete_version's
 * version is a VersionSlug).
 */
function onLatest(catalog: Catalog, spec: ToolSpec): ToolSpec {
  if (spec.params?.version !== 'VersionRef') return spec;
  return {
    ...spec,
    run: (call) => {
      if (call.args.version !== 'latest') return spec.run(call);
      const version = versionByRef(catalog, readerOf(call.actor), 'latest').slug;
      return spec.run({ ...call, args: { ...call.args, version } });
    },
  };
}

/**
 * The write tools (and those that need help:write, publishing-tools.ts): the same commands and
 * presenters as the API's writes, with the caller as the commit author, so the lock on published
 * versions and the preconditions hold as over REST. Each successful write is one commit.
 */
export function writeTools(deps: Deps): ToolSpec[] {
  const { writer, publisher, catalog } = deps;
  const tools: ToolSpec[] = [
    {
      name: 'create_version',
      title: 'Create a version',
      description: 'Creates a version: a draft unless status says otherwise; languages default ["en"], the first is the primary one; isLatest only with status "published". Answers the version.',
      write: true,
      body: 'VersionCreate',
      output: 'Version',
      run: async ({ actor, body: { slug, ...fields } }) => presentVersion(await createVersion(writer, actor!, slug, versionInput(fields, 'arguments'))),
    },
    {
      name: 'update_version',
      title: 'Update a version',
      description: 'Changes only the fields given of a version: label, status (publish with "published"), languages, sortOrder, isLatest (true moves the flag here from the previous latest). Answers the version.',
      write: true,
      hints: { idempotent: true },
      params: { version: 'VersionRef' },
      body: 'VersionPatch',
      output: 'Version',
      run: async ({ actor, args, body }) => presentVersion(await updateVersion(writer, actor!, args.version, versionInput(fieldsOf(body), 'arguments'), precondition(args))),
    },
    {
      name: 'duplicate_version',
      title: 'Duplicate a version',
      description: 'Copies a version with every node and translation under a new slug, to start the next release: a draft unless status is given, never latest; node ids stay the same.',
      write: true,
      params: { version: 'VersionRef' },
      body: 'VersionDuplicate',
      output: 'VersionEnvelope',
      run: async ({ actor, args, body }) => ({ version: presentVersion(await duplicateVersion(writer, actor!, args.version, body as DuplicateBody)) }),
    },
    {
      name: 'delete_version',
      title: 'Delete a version',
      description: 'Deletes a version with all its nodes and translations (and its working copy); its history stays in the repository. Takes the slug itself, never "latest".',
      write: true,
      hints: { destructive: true, idempotent: true },
      // Deleting is the one write a moved flag must not redirect: the caller names what goes.
      params: { version: 'VersionSlug' },
      output: 'Ok',
      run: async ({ actor, args }) => {
        await deleteVersion(writer, actor!, args.version, publisher.pendingFrom);
        return { ok: true };
      },
    },
    {
      name: 'create_node',
      title: 'Create a section or topic',
      description: "Creates a section or topic (kind, default topic) with translations keyed by language; the version's primary language is required. Without sortOrder it goes after its last sibling. Answers the node.",
      write: true,
      params: { version: 'VersionRef' },
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
      description: 'Renames (slug), moves (parentSlug, sortOrder), changes kind or icon, or merges translations field by field (a new language needs a title). Answers the node.',
      write: true,
      params: { version: 'VersionRef', slug: 'NodeSlug' },
      body: 'NodePatch',
      output: 'NodeWriteResult',
      run: async ({ actor, args, body }) => {
        const { state, slug } = await updateNode(writer, actor!, args.version, args.slug, nodeInput(fieldsOf(body), 'arguments'), precondition(args), body.minorEdit === true);
        return presentNodeWrite(state, slug);
      },
    },
    {
      name: 'delete_node',
      title: 'Delete a node',
      description: 'Deletes a node with its descendants and all their translations. Answers the removed slugs.',
      write: true,
      hints: { destructive: true, idempotent: true },
      params: { version: 'VersionRef', slug: 'NodeSlug' },
      extra: STAMP('node'),
      output: 'NodeDeleteResult',
      run: async ({ actor, args }) => ({ ok: true, removed: await deleteNode(writer, actor!, args.version, args.slug, precondition(args)) }),
    },
    {
      name: 'put_translation',
      title: 'Write a translation',
      description: 'Writes one translation of a node in full, creating or replacing it: title required; summary and bodyMd (Markdown) become empty when left out. Answers the stored translation.',
      write: true,
      hints: { idempotent: true },
      params: { version: 'VersionRef', slug: 'NodeSlug', language: 'LanguageCode' },
      body: 'TranslationPut',
      output: 'TranslationPutResult',
      run: async ({ actor, args, body }) => {
        const lang = language(args.language, 'arguments/language');
        return { translation: await putTranslation(writer, actor!, args.version, args.slug, lang, fieldsOf(body) as TranslationInput, precondition(args), body.minorEdit === true) };
      },
    },
    {
      name: 'delete_translation',
      title: 'Delete a translation',
      description: "Deletes one translation of a node (never the primary language's). Answers the languages left.",
      write: true,
      hints: { destructive: true, idempotent: true },
      params: { version: 'VersionRef', slug: 'NodeSlug', language: 'LanguageCode' },
      extra: STAMP('translation'),
      output: 'TranslationDeleteResult',
      run: async ({ actor, args }) => {
        const lang = language(args.language, 'arguments/language');
        return { ok: true, remainingLanguages: await deleteTranslation(writer, actor!, args.version, args.slug, lang, precondition(args)) };
      },
    },
    {
      name: 'reorder',
      title: 'Move many nodes',
      description: "Moves many nodes at once, each under parentSlug with sortOrder, all or nothing; the others keep their places. Answers every node's place in document order.",
      write: true,
      hints: { idempotent: true },
      params: { version: 'VersionRef' },
      body: 'Reorder',
      output: 'ReorderResult',
      run: async ({ actor, args, body }) => ({ version: args.version, items: await reorderNodes(writer, actor!, args.version, body.items) }),
    },
    {
      name: 'import_version',
      title: 'Import nodes',
      description:
        'Imports an export document, as nodes or as document: { nodes }: mode "merge" (default) upserts, "replace" also deletes what it leaves out. dryRun true answers the diff without writing. An invalid document is refused whole (invalid_document names each node).',
      write: true,
      hints: { idempotent: true },
      params: { version: 'VersionRef' },
      body: 'ImportRequest',
      output: 'ImportResult',
      run: async ({ actor, args, body }) => importJson(writer, actor!, args.version, body, 'arguments'),
    },
    ...publishingTools(deps),
  ];
  return tools.map((spec) => onLatest(catalog, spec));
}
