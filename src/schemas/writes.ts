import { nodeFieldNames, nodeFields, translationFieldNames, translationFields } from './common.ts';

/** Schemas of the node, translation and reorder writes. */

const TranslationFields = {
  title: { $ref: 'Title' },
  summary: { $ref: 'Summary' },
  bodyMd: { $ref: 'BodyMd' },
} as const;

export const TranslationInput = {
  $id: 'TranslationInput',
  type: 'object',
  required: ['title'],
  additionalProperties: false,
  properties: TranslationFields,
} as const;

const Translations = (item: object) => ({
  type: 'object',
  propertyNames: { $ref: 'LanguageCode' },
  additionalProperties: item,
  description: 'Keyed by language code; every language must be enabled on the version.',
});

export const NodeCreate = {
  $id: 'NodeCreate',
  type: 'object',
  required: ['slug', 'translations'],
  additionalProperties: false,
  properties: {
    slug: { $ref: 'NodeSlug' },
    kind: { enum: ['section', 'topic'], default: 'topic', description: 'Default topic.' },
    parentSlug: { type: ['string', 'null'], description: 'Null or absent: top level.' },
    icon: { $ref: 'Icon' },
    sortOrder: { $ref: 'SortKey', description: "Absent: after the last sibling (the largest key + 1, or 0 for the first child)." },
    translations: { ...Translations({ $ref: 'TranslationInput' }), minProperties: 1, description: 'Must include the primary language.' },
  },
} as const;

export const NodePatch = {
  $id: 'NodePatch',
  type: 'object',
  additionalProperties: false,
  properties: {
    slug: { $ref: 'NodeSlug', description: 'A new slug renames the node; its files move with it.' },
    kind: { enum: ['section', 'topic'] },
    parentSlug: { type: ['string', 'null'], description: 'Moves the node; refused with `cycle` into its own subtree.' },
    icon: { $ref: 'Icon' },
    sortOrder: { $ref: 'SortKey', description: 'Absent with a new `parentSlug`: after the last sibling there.' },
    translations: Translations({ type: 'object', additionalProperties: false, properties: TranslationFields, description: 'Supplied fields change; a new language needs a title.' }),
    expectedUpdatedAt: { $ref: 'Timestamp' },
    minorEdit: { type: 'boolean', description: 'The change of the primary-language text is minor (a typo, a link): its translations are not marked outdated by it.' },
  },
} as const;

/** A warning in the answer to a write: present only when there is something to say, so answers without any are as before. */
export const LinkWarning = {
  $id: 'LinkWarning',
  type: 'object',
  required: ['code', 'path', 'message'],
  properties: {
    code: { enum: ['broken_link', 'links_not_checked'], description: '`broken_link`: an internal link to a node, heading anchor or language the version does not have (docs/content-format.md#links); `links_not_checked`: the body is too long for all its links to be read.' },
    path: { type: 'string', description: 'The content file, `{lang}/{slug}.md`.' },
    line: { type: 'integer', minimum: 1, description: 'The line in that file, front matter counted.' },
    link: { type: 'string', description: 'The link as written.' },
    message: { type: 'string' },
  },
  examples: [{ code: 'broken_link', path: 'de/install.md', line: 9, link: '../setup#download', message: 'broken link "../setup#download": version v2 has no topic or section "setup"' }],
} as const;

const Warnings = {
  type: 'array',
  items: { $ref: 'LinkWarning' },
  description: 'Broken internal links in what was written (and, after a rename, links elsewhere in the version that named the old slug). Absent when there are none; the write is made either way.',
} as const;

export const NodeWriteResult = {
  $id: 'NodeWriteResult',
  type: 'object',
  required: nodeFieldNames,
  properties: {
    ...nodeFields,
    translations: { type: 'object', additionalProperties: { type: 'object', required: ['updatedAt'], properties: { updatedAt: { $ref: 'Timestamp' } } } },
    warnings: Warnings,
  },
} as const;

export const NodeDeleteResult = {
  $id: 'NodeDeleteResult',
  type: 'object',
  required: ['ok', 'removed'],
  properties: {
    ok: { const: true },
    removed: { type: 'array', items: { $ref: 'NodeSlug' }, description: 'The node and its descendants, in document order.' },
    warnings: { ...Warnings, description: 'Links elsewhere in the version that named a removed node, now broken. Absent when there are none.' },
  },
} as const;

export const TranslationPut = {
  $id: 'TranslationPut',
  type: 'object',
  required: ['title'],
  additionalProperties: false,
  properties: {
    ...TranslationFields,
    expectedUpdatedAt: { $ref: 'Timestamp' },
    minorEdit: { type: 'boolean', description: 'Writing the primary language: the change is minor (a typo, a link), and its translations are not marked outdated by it. Ignored for other languages, which a write always brings in line with the primary text.' },
  },
} as const;

export const TranslationPutResult = {
  $id: 'TranslationPutResult',
  type: 'object',
  required: ['translation'],
  properties: {
    translation: {
      type: 'object',
      required: [...translationFieldNames, 'created'],
      properties: {
        ...translationFields,
        created: { type: 'boolean' },
      },
    },
    warnings: Warnings,
  },
} as const;

export const TranslationDeleteResult = {
  $id: 'TranslationDeleteResult',
  type: 'object',
  required: ['ok', 'remainingLanguages'],
  properties: { ok: { const: true }, remainingLanguages: { type: 'array', items: { $ref: 'LanguageCode' } } },
} as const;

const Placement = {
  type: 'object',
  required: ['slug', 'parentSlug', 'sortOrder'],
  additionalProperties: false,
  properties: { slug: { $ref: 'NodeSlug' }, parentSlug: { type: ['string', 'null'] }, sortOrder: { $ref: 'SortKey' } },
} as const;

export const Reorder = {
  $id: 'Reorder',
  type: 'object',
  required: ['items'],
  additionalProperties: false,
  properties: { items: { type: 'array', minItems: 1, maxItems: 20000, items: Placement } },
} as const;

export const ReorderResult = {
  $id: 'ReorderResult',
  type: 'object',
  required: ['version', 'items'],
  properties: { version: { $ref: 'VersionSlug' }, items: { type: 'array', items: Placement, description: 'Every node of the version, in document order.' } },
} as const;

export const writeSchemas = [LinkWarning, TranslationInput, NodeCreate, NodePatch, NodeWriteResult, NodeDeleteResult, TranslationPut, TranslationPutResult, TranslationDeleteResult, Reorder, ReorderResult];
