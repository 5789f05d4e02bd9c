/** Schemas of export, JSON import and content-file import. */

const ExportTranslation = {
  type: 'object',
  required: ['title'],
  additionalProperties: false,
  properties: { title: { $ref: 'Title' }, summary: { $ref: 'Summary' }, bodyMd: { $ref: 'BodyMd' }, updatedAt: { $ref: 'Timestamp', description: 'Ignored on import.' } },
} as const;

export const ExportNode = {
  $id: 'ExportNode',
  type: 'object',
  required: ['slug'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 100, description: 'Kept on import when no other node of the version has it.' },
    slug: { $ref: 'NodeSlug' },
    kind: { enum: ['section', 'topic'], description: 'Default: unchanged for existing nodes, topic for new ones.' },
    parentSlug: { type: ['string', 'null'] },
    icon: { $ref: 'Icon' },
    sortOrder: { type: 'number', minimum: 0 },
    updatedAt: { $ref: 'Timestamp', description: 'Ignored on import.' },
    translations: { type: 'object', propertyNames: { $ref: 'LanguageCode' }, additionalProperties: ExportTranslation },
  },
} as const;

export const ExportDocument = {
  $id: 'ExportDocument',
  type: 'object',
  required: ['version', 'nodes'],
  properties: { version: { $ref: 'Version' }, nodes: { type: 'array', items: { $ref: 'ExportNode' } } },
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
