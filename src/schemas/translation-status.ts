/** Schemas of `GET /versions/{version}/translation-status`: what each language lacks and what lags behind its primary text. */

export const TranslationStatusQuery = {
  $id: 'TranslationStatusQuery',
  type: 'object',
  properties: {
    lang: { $ref: 'LanguageCode', description: "One language, enabled on the version (400 `language_not_enabled` otherwise). Absent: every language but the primary one. The primary language itself is the reference: it has nothing missing or outdated." },
  },
} as const;

const Missing = {
  type: 'object',
  required: ['slug', 'kind', 'primaryTitle'],
  properties: {
    slug: { $ref: 'NodeSlug' },
    kind: { enum: ['section', 'topic'] },
    primaryTitle: { type: 'string', description: 'The title in the primary language.' },
  },
} as const;

const Outdated = {
  type: 'object',
  required: ['slug', 'kind', 'title', 'primaryTitle', 'updatedAt', 'primaryUpdatedAt', 'basedOn', 'primaryRevision', 'diff'],
  properties: {
    slug: { $ref: 'NodeSlug' },
    kind: { enum: ['section', 'topic'] },
    title: { type: 'string', description: "The translation's title." },
    primaryTitle: { type: 'string' },
    updatedAt: { $ref: 'Timestamp', description: 'When the translation was last written.' },
    primaryUpdatedAt: { $ref: 'Timestamp', description: "The primary-language translation's stamp." },
    basedOn: { type: 'string', description: 'The revision of the primary text (a git blob id) the translation was brought in line with.' },
    primaryRevision: { type: 'string', description: "The primary text's revision now." },
    diff: {
      type: ['string', 'null'],
      description: "The primary-language file's changes since `basedOn`, as a unified diff (front matter and body, `a/` the base, `b/` now). Null when left out: see `diffOmitted`.",
    },
    diffOmitted: {
      enum: ['budget', 'base_not_stored', 'too_complex', 'git_unavailable'],
      description: "Why `diff` is null: the answer's diffs reached their limit (200,000 characters in the API, 50,000 in the tool server; ask for one language with `lang`); the repository does not hold the text of `basedOn` (it came with an export or content files from elsewhere); the two texts share too little to compare in time; or git cannot be run.",
    },
  },
} as const;

export const TranslationStatusReport = {
  $id: 'TranslationStatusReport',
  type: 'object',
  required: ['version', 'primaryLanguage', 'languages'],
  properties: {
    version: { $ref: 'VersionSlug' },
    primaryLanguage: { $ref: 'LanguageCode' },
    languages: {
      type: 'array',
      description: "Each language asked for, in the version's order.",
      items: {
        type: 'object',
        required: ['language', 'translated', 'untracked', 'missing', 'outdated'],
        properties: {
          language: { $ref: 'LanguageCode' },
          translated: { type: 'integer', minimum: 0, description: 'Nodes with a translation in the language.' },
          untracked: { type: 'integer', minimum: 0, description: 'Translations that record no base (written by hand without `basedOn`): counted as in line until they are next written.' },
          missing: { type: 'array', items: Missing, description: 'Nodes without a translation in the language, in document order (readers get the English or primary page in its place).' },
          outdated: { type: 'array', items: Outdated, description: 'Translations whose primary text changed (not by a minor edit) since they were last written, in document order.' },
        },
      },
    },
  },
} as const;

export const translationStatusSchemas = [TranslationStatusQuery, TranslationStatusReport];
