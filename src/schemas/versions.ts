const Status = { type: 'string', enum: ['draft', 'published', 'archived'] } as const;
const Languages = {
  type: 'array',
  minItems: 1,
  maxItems: 50,
  uniqueItems: true,
  items: { $ref: 'LanguageCode' },
  description: 'Enabled languages; the first is the primary language.',
} as const;
const SortOrder = { type: ['number', 'null'], description: 'Position among versions, for clients that order them by hand.' } as const;

export const Version = {
  $id: 'Version',
  type: 'object',
  required: ['slug', 'label', 'status', 'languages', 'sortOrder', 'isLatest', 'hidden', 'workingCopyOf', 'createdAt', 'updatedAt'],
  properties: {
    slug: { $ref: 'VersionSlug' },
    label: { type: 'string' },
    status: Status,
    languages: Languages,
    sortOrder: SortOrder,
    isLatest: { type: 'boolean' },
    hidden: { type: 'boolean', description: 'True on working copies.' },
    workingCopyOf: { type: ['string', 'null'] },
    createdAt: { $ref: 'Timestamp' },
    updatedAt: { $ref: 'Timestamp', description: "Stamp of the last change to the version's own fields; usable as `expectedUpdatedAt`." },
  },
} as const;

export const VersionList = { $id: 'VersionList', type: 'array', items: { $ref: 'Version' } } as const;

export const VersionCreate = {
  $id: 'VersionCreate',
  type: 'object',
  required: ['slug'],
  additionalProperties: false,
  properties: {
    slug: { $ref: 'VersionSlug' },
    label: { $ref: 'Label', description: 'Defaults to the slug.' },
    status: Status,
    languages: Languages,
    sortOrder: SortOrder,
    isLatest: { type: 'boolean', description: 'Only with status published; the previous latest version loses the flag.' },
  },
} as const;

export const VersionPatch = {
  $id: 'VersionPatch',
  type: 'object',
  additionalProperties: false,
  properties: {
    label: { $ref: 'Label' },
    status: Status,
    languages: { ...Languages, description: 'A language with translations cannot be removed (409 `language_in_use`).' },
    sortOrder: SortOrder,
    isLatest: { type: 'boolean' },
    expectedUpdatedAt: { $ref: 'Timestamp', description: "Refuse (409) if the version's fields changed after this stamp." },
  },
} as const;

export const VersionDuplicate = {
  $id: 'VersionDuplicate',
  type: 'object',
  required: ['slug'],
  additionalProperties: false,
  properties: {
    slug: { $ref: 'VersionSlug' },
    label: { $ref: 'Label', description: 'Defaults to the new slug.' },
    status: { ...Status, description: 'Default draft. The copy is never latest.' },
  },
} as const;

export const VersionEnvelope = { $id: 'VersionEnvelope', type: 'object', required: ['version'], properties: { version: { $ref: 'Version' } } } as const;

export const versionSchemas = [Version, VersionList, VersionCreate, VersionPatch, VersionDuplicate, VersionEnvelope];
