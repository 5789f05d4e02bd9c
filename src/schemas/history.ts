import { pagedQuery, withHint } from './common.ts';

/** Schemas of the history of nodes and versions, reads at a revision, diffs and restores. */

export const Revision = withHint(
  { $id: 'Revision', type: 'string', pattern: '^[0-9a-f]{7,40}$', description: 'A commit id of the content history: 40 hex digits, or at least its first 7 when they name one commit.' } as const,
  'must be a commit id (7 to 40 lowercase hex digits), as history lists it',
);

const page = pagedQuery({
  max: 100,
  limit: 'Entries per page, 1 to 100 (default 20).',
  cursor: {
    pattern: '^[A-Za-z0-9_-]{1,400}$',
    description: 'Where the page starts: `next` of the previous page (also in its `Link` header). Opaque; pages stay put while new commits are made.',
    hint: 'must be the `next` of a previous page, as it was given',
  },
});

export const NodeHistoryQuery = {
  $id: 'NodeHistoryQuery',
  type: 'object',
  properties: {
    language: { $ref: 'LanguageCode', description: 'Only this language\'s translation (with the changes to the node itself); absent: every language.' },
    ...page,
  },
} as const;

export const HistoryPageQuery = { $id: 'HistoryPageQuery', type: 'object', properties: { ...page } } as const;

export const DiffQuery = {
  $id: 'DiffQuery',
  type: 'object',
  properties: { language: { $ref: 'LanguageCode', description: 'The translation whose Markdown file is compared; default the version\'s primary language.' } },
} as const;

export const TopicQuery = {
  $id: 'TopicQuery',
  type: 'object',
  properties: {
    language: { $ref: 'LanguageCode', description: 'Default `en`; falls back to English, then the primary language, per node.' },
    revision: { $ref: 'Revision', description: 'Read the content as it was at this commit (a credential is needed unless the version was published then and is now).' },
  },
} as const;

export const RevisionQuery = {
  $id: 'RevisionQuery',
  type: 'object',
  properties: { revision: { $ref: 'Revision', description: 'Read the translation as it was at this commit (a credential is needed unless the version was published then and is now).' } },
} as const;

const commitFields = {
  revision: { type: 'string', pattern: '^[0-9a-f]{40}$', description: 'The commit id.' },
  author: { type: 'string', description: 'The name of the key or account that made the write (`help-content-service` for the service\'s own commits).' },
  at: { $ref: 'Timestamp', description: 'When the commit was made (whole seconds, as git keeps it).' },
  message: { type: 'string', description: 'What the commit did, in one line.' },
} as const;

export const NodeHistoryEntry = {
  $id: 'NodeHistoryEntry',
  type: 'object',
  required: ['revision', 'author', 'at', 'message', 'change', 'slug', 'language'],
  additionalProperties: false,
  properties: {
    ...commitFields,
    change: { enum: ['created', 'updated', 'moved', 'renamed', 'deleted'], description: 'What the commit did to the node (`language` null) or to its translation in `language`.' },
    from: { $ref: 'NodeSlug', description: 'For `renamed`: the slug before.' },
    slug: { $ref: 'NodeSlug', description: 'The node\'s slug after the commit (before it, for `deleted`).' },
    language: { oneOf: [{ $ref: 'LanguageCode' }, { type: 'null' }], description: 'The translation changed; null for the node itself (its place, slug, kind or icon in version.json).' },
  },
} as const;

export const NodeHistory = {
  $id: 'NodeHistory',
  type: 'object',
  required: ['version', 'id', 'slug', 'language', 'history', 'next'],
  additionalProperties: false,
  properties: {
    version: { $ref: 'VersionSlug' },
    id: { type: 'string', description: 'The node\'s id: history follows it through renames.' },
    slug: { $ref: 'NodeSlug' },
    language: { oneOf: [{ $ref: 'LanguageCode' }, { type: 'null' }] },
    history: { type: 'array', items: { $ref: 'NodeHistoryEntry' }, description: 'Newest first.' },
    next: { type: ['string', 'null'], description: 'The cursor of the next page; null on the last.' },
  },
} as const;

export const VersionHistory = {
  $id: 'VersionHistory',
  type: 'object',
  required: ['version', 'history', 'next'],
  additionalProperties: false,
  properties: {
    version: { $ref: 'VersionSlug' },
    history: {
      type: 'array',
      description: 'Newest first: every write, import, reorder and merged publish request that changed the version.',
      items: {
        type: 'object',
        required: ['revision', 'author', 'at', 'message', 'change'],
        additionalProperties: false,
        properties: { ...commitFields, change: { enum: ['created', 'updated', 'deleted'], description: 'What the commit did to the version.' } },
      },
    },
    next: { type: ['string', 'null'], description: 'The cursor of the next page; null on the last.' },
  },
} as const;

export const HistoryDiff = {
  $id: 'HistoryDiff',
  type: 'object',
  required: ['version', 'id', 'slug', 'language', 'revision', 'previousRevision', 'oldPath', 'newPath', 'unified', 'hunks'],
  additionalProperties: false,
  properties: {
    version: { $ref: 'VersionSlug' },
    id: { type: 'string' },
    slug: { $ref: 'NodeSlug' },
    language: { $ref: 'LanguageCode' },
    revision: { type: 'string', pattern: '^[0-9a-f]{40}$' },
    previousRevision: { type: ['string', 'null'], description: 'The revision before it that changed the file; null when this one created it.' },
    oldPath: { type: ['string', 'null'], description: 'The file before (null: it did not exist).' },
    newPath: { type: ['string', 'null'], description: 'The file after (null: deleted).' },
    unified: { type: 'string', description: 'The unified diff, as `diff -u` and git write it (3 lines of context).' },
    hunks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['oldStart', 'oldLines', 'newStart', 'newLines', 'lines'],
        additionalProperties: false,
        properties: {
          oldStart: { type: 'integer' },
          oldLines: { type: 'integer' },
          newStart: { type: 'integer' },
          newLines: { type: 'integer' },
          lines: {
            type: 'array',
            items: {
              type: 'object',
              required: ['type', 'text'],
              additionalProperties: false,
              properties: { type: { enum: ['context', 'added', 'removed', 'note'], description: '`note`: "No newline at end of file".' }, text: { type: 'string' } },
            },
          },
        },
      },
    },
  },
} as const;

export const RestoreRequest = {
  $id: 'RestoreRequest',
  type: 'object',
  required: ['revision'],
  additionalProperties: false,
  properties: {
    revision: { $ref: 'Revision' },
    language: { $ref: 'LanguageCode', description: 'Restore only this translation; absent: every translation the node had at that revision.' },
    expectedUpdatedAt: { $ref: 'Timestamp', description: 'Only if the node has not changed since (its `updatedAt`); 409 `stale_write` otherwise.' },
  },
} as const;

export const RestoreResult = {
  $id: 'RestoreResult',
  type: 'object',
  required: ['version', 'id', 'slug', 'restoredFrom', 'recreated', 'languages', 'revision'],
  additionalProperties: false,
  properties: {
    version: { $ref: 'VersionSlug' },
    id: { type: 'string' },
    slug: { $ref: 'NodeSlug' },
    restoredFrom: { type: 'string', pattern: '^[0-9a-f]{40}$', description: 'The revision whose text was written back.' },
    recreated: { type: 'boolean', description: 'True when the node had been deleted and was made again, with its translations, in its place.' },
    languages: { type: 'array', items: { $ref: 'LanguageCode' }, description: 'The translations written; empty when each was already as it was then (no commit).' },
    revision: { type: ['string', 'null'], description: 'The new commit; null when nothing changed.' },
  },
} as const;

export const historySchemas = [Revision, NodeHistoryQuery, HistoryPageQuery, DiffQuery, TopicQuery, RevisionQuery, NodeHistoryEntry, NodeHistory, VersionHistory, HistoryDiff, RestoreRequest, RestoreResult];
