import { createNode, reorderNodes, updateNode, writeNodeDeletion } from '../commands/nodes.ts';
import type { NodeCreateInput, NodePatchInput } from '../domain/nodes.ts';
import type { Placement } from '../domain/tree.ts';
import { endpoint } from '../http/api.ts';
import { byLanguage } from '../http/languages.ts';
import { readPrecondition } from '../http/preconditions.ts';
import { presentNodeWrite } from '../presenters/nodes.ts';
import { orphanedLinkWarnings, withWarnings } from '../presenters/links.ts';
import { scopeOf } from '../content/link-rules.ts';
import { writtenLinkWarnings } from '../content/version-links.ts';
import type { VersionState } from '../domain/types.ts';
import { versionLinks } from '../queries/links.ts';
import type { Deps } from '../deps.ts';

export type ReorderBody = { items: Placement[] };

/** A node's fields with the translations' languages in canonical case; `at` is where they came from (`body`, `arguments`), for errors. */
export function nodeInput<T extends { translations?: Record<string, unknown> }>(fields: T, at: string): T {
  return fields.translations ? ({ ...fields, translations: byLanguage(fields.translations, `${at}/translations`) } as T) : fields;
}

/** The broken links a node write leaves: in the translations it wrote, and, after a rename, those elsewhere that name the old slug. */
async function nodeWriteWarnings(state: VersionState, slug: string, languages: readonly string[], portalPath: string, renamedFrom: string | null) {
  const written = writtenLinkWarnings(state, languages.map((language) => [slug, language] as const), scopeOf(state, portalPath));
  if (renamedFrom === null || renamedFrom === slug) return written;
  return [...written, ...orphanedLinkWarnings(await versionLinks(state, portalPath), new Set([renamedFrom]))];
}

/** Creating, changing, deleting and reordering nodes. */
export function nodeRoutes({ writer, config }: Deps) {
  return [
    endpoint<NodeCreateInput>({
      method: 'post',
      path: '/versions/:version/nodes',
      operationId: 'createNode',
      summary: 'Create a section or topic with its translations',
      tag: 'Writing nodes and translations',
      access: 'write',
      body: 'NodeCreate',
      errors: ['not_found', 'conflict', 'unknown_parent', 'too_deep', 'language_not_enabled', 'primary_language_required'],
      responses: { 200: { description: 'The node and its stamps', schema: 'NodeWriteResult' } },
      handle: async ({ actor, params, body }) => {
        const input = nodeInput(body, 'body');
        const { state, slug } = await createNode(writer, actor!, params.version, input);
        const warnings = await nodeWriteWarnings(state, slug, Object.keys(input.translations), config.portal.path, null);
        return { body: withWarnings(presentNodeWrite(state, slug), warnings) };
      },
    }),
    endpoint<NodePatchInput & { expectedUpdatedAt?: string; minorEdit?: boolean }>({
      method: 'patch',
      path: '/versions/:version/nodes/:slug',
      operationId: 'updateNode',
      summary: 'Rename, move, change kind or icon, or merge translations of a node',
      tag: 'Writing nodes and translations',
      access: 'write',
      body: 'NodePatch',
      headers: ['If-Unmodified-Since'],
      errors: ['not_found', 'stale_write', 'conflict', 'unknown_parent', 'cycle', 'too_deep', 'language_not_enabled'],
      responses: { 200: { description: 'The node and its stamps', schema: 'NodeWriteResult' } },
      handle: async ({ ctx: http, actor, params, body: { expectedUpdatedAt, minorEdit, ...fields } }) => {
        const pre = readPrecondition(http, expectedUpdatedAt);
        const input = nodeInput(fields, 'body');
        const { state, slug } = await updateNode(writer, actor!, params.version, params.slug, input, pre, minorEdit === true);
        const warnings = await nodeWriteWarnings(state, slug, Object.keys(input.translations ?? {}), config.portal.path, params.slug);
        return { body: withWarnings(presentNodeWrite(state, slug), warnings) };
      },
    }),
    endpoint({
      method: 'delete',
      path: '/versions/:version/nodes/:slug',
      operationId: 'deleteNode',
      summary: 'Delete a node and its descendants',
      tag: 'Writing nodes and translations',
      access: 'write',
      headers: ['If-Unmodified-Since'],
      errors: ['not_found', 'stale_write'],
      responses: { 200: { description: 'The removed slugs', schema: 'NodeDeleteResult' } },
      handle: async ({ ctx: http, actor, params }) => {
        const pre = readPrecondition(http, undefined);
        const { removed, state } = await writeNodeDeletion(writer, actor!, params.version, params.slug, pre);
        return { body: withWarnings({ ok: true, removed }, orphanedLinkWarnings(await versionLinks(state, config.portal.path), new Set(removed))) };
      },
    }),
    endpoint<ReorderBody>({
      method: 'post',
      path: '/versions/:version/reorder',
      operationId: 'reorderNodes',
      summary: 'Move many nodes at once (all or nothing)',
      description: 'Each item puts a node under `parentSlug` with the sort key `sortOrder`, stored exactly as sent; nodes not named keep their keys. Siblings are in ascending order of their keys; among equal keys the nodes not named come first, then the named ones in the order of `items`. Every row is checked before anything changes. The answer lists every node in document order.',
      tag: 'Writing nodes and translations',
      access: 'write',
      body: 'Reorder',
      errors: ['not_found', 'unknown_node', 'unknown_parent', 'cycle', 'too_deep'],
      responses: { 200: { description: 'Every node\'s place, in document order', schema: 'ReorderResult' } },
      handle: async ({ actor, params, body }) => {
        const items = await reorderNodes(writer, actor!, params.version, body.items);
        return { body: { version: params.version, items } };
      },
    }),
  ];
}
