/** Schemas of export, JSON import and content-file import. */
import { NODE_ID_MAX, NODE_ID_PATTERN } from '../domain/names.ts';

const ExportTranslation = {
  type: 'object',
  required: ['title'],
  additionalProperties: false,
  properties: {
    title: { $ref: 'Title' },
    summary: { $ref: 'Summary' },
    bodyMd: { $ref: 'BodyMd' },
    updatedAt: { $ref: 'Timestamp', description: 'Ignored on import.' },
    basedOn: {
      type: 'string',
      pattern: '^[0-9a-f]{40}$',
      description: 'The revision of the primary-language text this translation was brought in line with (on the primary translation, present after minor edits: the revision its translations are compared against). Kept on import; absent, a translation the import writes is taken as in line with the primary text as imported.',
    },
  },
} as const;

export const ExportNode = {
  $id: 'ExportNode',
  type: 'object',
  required: ['slug'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1, maxLength: NODE_ID_MAX, pattern: NODE_ID_PATTERN, description: 'Kept on import when no other node of the version has it. 1–100 characters, no control characters, no white space at either end.' },
    slug: { $ref: 'NodeSlug' },
    kind: { enum: ['section', 'topic'], description: 'Default: unchanged for existing nodes, topic for new ones.' },
    parentSlug: { type: ['string', 'null'] },
    icon: { $ref: 'Icon' },
    sortOrder: { $ref: 'SortKey', description: 'Absent: an existing node keeps its key when its parent stays the same; otherwise after its last sibling.' },
    updatedAt: { $ref: 'Timestamp', description: 'Ignored on import.' },
    translations: { type: 'object', propertyNames: { $ref: 'LanguageCode' }, additionalProperties: ExportTranslation },
  },
} as const;

const Redirects = { type: 'array', maxItems: 100000, items: { $ref: 'Redirect' }, description: 'Old slugs of renamed nodes, sorted by `from`; reads of them answer 301.' } as const;
const Removed = { type: 'array', maxItems: 100000, items: { $ref: 'NodeSlug' }, description: 'Slugs of published nodes since deleted: the portal answers 410 Gone for them.' } as const;

export const ExportDocument = {
  $id: 'ExportDocument',
  type: 'object',
  required: ['version', 'nodes'],
  properties: { version: { $ref: 'Version' }, nodes: { type: 'array', items: { $ref: 'ExportNode' } }, redirects: Redirects, removed: Removed },
} as const;

export const ContentFile = {
  $id: 'ContentFile',
  type: 'object',
  required: ['path', 'content'],
  additionalProperties: false,
  properties: {
    path: { type: 'string', minLength: 1, maxLength: 500, description: '`version.json` or `{lang}/{slug}.md`, possibly below a folder (e.g. `docs/v2/en/intro.md`).' },
    content: { type: 'string' },
  },
} as const;

export const ExportResult = {
  $id: 'ExportResult',
  oneOf: [
    { $ref: 'ExportDocument' },
    { type: 'object', required: ['files'], properties: { files: { type: 'array', items: { $ref: 'ContentFile' } } } },
  ],
} as const;

export const ExportQuery = {
  $id: 'ExportQuery',
  type: 'object',
  properties: { format: { enum: ['json', 'files'], description: '`files` exports content files instead of the JSON document.' } },
} as const;

export const transferSchemas = [ExportNode, ExportDocument, ContentFile, ExportResult, ExportQuery];

export const ImportRequest = {
  $id: 'ImportRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    mode: { enum: ['merge', 'replace'], default: 'merge', description: '`merge` (default) upserts; `replace` also deletes what the document omits.' },
    dryRun: { type: 'boolean', description: 'Check and report the diff; write nothing.' },
    nodes: { type: 'array', maxItems: 20000, items: { $ref: 'ExportNode' } },
    redirects: { ...Redirects, description: 'With `nodes`: old slugs to keep answering 301, added to (and for the same `from` replacing) those the version has.' },
    removed: { ...Removed, description: 'With `nodes`: deleted slugs the portal answers 410 for.' },
    document: {
      type: 'object',
      required: ['nodes'],
      properties: {
        nodes: { type: 'array', maxItems: 20000, items: { $ref: 'ExportNode' } },
        version: { type: 'object', description: 'Ignored: an export document can be sent as it is.' },
        redirects: Redirects,
        removed: Removed,
      },
    },
  },
  // Exactly one: with both, both branches match and oneOf fails too.
  oneOf: [
    { properties: { nodes: true }, required: ['nodes'] },
    { properties: { document: true }, required: ['document'] },
  ],
  description: 'must give the nodes one way: as "nodes": [ … ], or as an export document sent as it is in "document": { "version", "nodes" }',
} as const;

const SlugLanguage = { type: 'object', required: ['slug', 'language'], properties: { slug: { $ref: 'NodeSlug' }, language: { $ref: 'LanguageCode' } } } as const;
const Slugs = { type: 'array', items: { $ref: 'NodeSlug' } } as const;

export const ImportResult = {
  $id: 'ImportResult',
  type: 'object',
  required: ['dryRun', 'mode', 'diff', 'version'],
  properties: {
    dryRun: { type: 'boolean' },
    mode: { enum: ['merge', 'replace'] },
    diff: {
      type: 'object',
      required: ['created', 'updated', 'unchanged', 'deleted', 'updatedTranslations', 'deletedTranslations'],
      properties: {
        created: Slugs,
        updated: Slugs,
        unchanged: Slugs,
        deleted: Slugs,
        renamed: { type: 'array', items: { $ref: 'Redirect' }, description: 'In `replace` mode, nodes the document gives a new slug, found by `id` (listed in `updated` too); each old slug now answers 301.' },
        updatedTranslations: { type: 'array', items: SlugLanguage, description: 'Translations created or changed.' },
        deletedTranslations: { type: 'array', items: SlugLanguage },
      },
    },
    version: { $ref: 'Version' },
  },
} as const;

export const ImportFilesRequest = {
  $id: 'ImportFilesRequest',
  type: 'object',
  required: ['files'],
  additionalProperties: false,
  properties: {
    files: { type: 'array', items: { $ref: 'ContentFile' }, description: 'At most 2,000 files and 10 MB of content (413 `limit_exceeded`).' },
    dryRun: { type: 'boolean' },
  },
} as const;

export const DryRunQuery = {
  $id: 'DryRunQuery',
  type: 'object',
  properties: { dryRun: { enum: ['true', 'false'], description: '`true` validates and summarises without writing.' } },
} as const;

export const ContentProblem = {
  $id: 'ContentProblem',
  type: 'object',
  required: ['path', 'message'],
  properties: { path: { type: 'string', description: 'As sent.' }, line: { type: 'integer', minimum: 1 }, message: { type: 'string' } },
} as const;

/** What replacing a version's content with files does, by node. */
export const FilesSummary = {
  $id: 'FilesSummary',
  type: 'object',
  required: ['created', 'updated', 'deleted', 'unchanged', 'slugs'],
  properties: {
    created: { type: 'integer', minimum: 0 },
    updated: { type: 'integer', minimum: 0 },
    deleted: { type: 'integer', minimum: 0 },
    unchanged: { type: 'integer', minimum: 0 },
    slugs: { type: 'object', required: ['created', 'updated', 'deleted'], properties: { created: Slugs, updated: Slugs, deleted: Slugs } },
    renamed: {
      type: 'array',
      items: { type: 'object', required: ['from', 'to'], properties: { from: { $ref: 'NodeSlug' }, to: { $ref: 'NodeSlug' } } },
      description: 'Nodes the files give another slug, found by their id: each is also in `updated`, and its old slug redirects to it from then on. Empty when none; absent from publish requests made before it was answered.',
    },
  },
} as const;

export const ImportFilesResult = {
  $id: 'ImportFilesResult',
  type: 'object',
  required: ['dryRun', 'summary', 'warnings', 'version', 'workingCopyDeleted', 'requestsImported'],
  properties: {
    dryRun: { type: 'boolean' },
    summary: { $ref: 'FilesSummary' },
    warnings: { type: 'array', items: { $ref: 'ContentProblem' } },
    version: {
      type: 'object',
      required: ['slug', 'exists', 'status', 'isLatest'],
      properties: { slug: { $ref: 'VersionSlug' }, exists: { type: 'boolean', description: 'Whether the version existed before.' }, status: { enum: ['draft', 'published', 'archived'] }, isLatest: { type: 'boolean' } },
    },
    workingCopyDeleted: { type: 'boolean', description: 'The working copy was deleted (in a dry run: would be): a publish request made from it is completed, and it holds nothing made since. Otherwise it is kept, and a warning says why.' },
    requestsImported: { type: 'integer', minimum: 0, description: 'Publish requests for the version whose pull request is merged, now imported (in a dry run: would be).' },
  },
} as const;

export const importSchemas = [ImportRequest, ImportResult, ImportFilesRequest, DryRunQuery, ContentProblem, FilesSummary, ImportFilesResult];
