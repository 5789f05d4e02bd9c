import { withHint } from './common.ts';

/** Schemas of the PDF bundle. */

export const PdfBundleQuery = {
  $id: 'PdfBundleQuery',
  type: 'object',
  properties: {
    lang: { $ref: 'LanguageCode', description: 'One of the version\'s `languages` (400 `language_not_enabled` otherwise); default `en`, or the primary language when the version has no English. Each entry without a translation in it falls back to English, then the primary language.' },
    topics: withHint({ type: 'string', pattern: '^[a-z0-9_-]+(,[a-z0-9_-]+)*$', description: 'Comma-separated topic or section slugs; sections bring their descendants. Omit for the whole version.' } as const, 'must be topic or section slugs separated by single commas, without spaces (getting-started,install)'),
    limit: withHint({ type: 'string', pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$', description: 'Keep only the first N topics, 1 to 200.' } as const, 'must be a whole number from 1 to 200'),
  },
} as const;

export const PdfBundle = {
  $id: 'PdfBundle',
  type: 'object',
  required: ['version', 'language', 'template', 'entries', 'fonts', 'filename'],
  properties: {
    version: {
      type: 'object',
      required: ['slug', 'label', 'status', 'languages'],
      properties: { slug: { $ref: 'VersionSlug' }, label: { type: 'string' }, status: { enum: ['draft', 'published', 'archived'] }, languages: { type: 'array', items: { $ref: 'LanguageCode' } } },
    },
    language: { $ref: 'LanguageCode', description: 'The language requested.' },
    template: {
      type: 'object',
      required: ['title', 'subtitle', 'date', 'titlePage', 'tableOfContents', 'header', 'footer', 'direction', 'pageSize', 'fontFamily', 'uncoveredLanguages'],
      properties: {
        title: { type: 'string', description: 'Title page title: the version label.' },
        subtitle: { type: 'string', description: 'The language name, or the topic title for a single topic.' },
        date: { type: 'string', format: 'date', description: 'Date for the title page (UTC).' },
        titlePage: { type: 'boolean' },
        tableOfContents: { type: 'boolean', description: 'On when the PDF holds more than one topic.' },
        header: { type: 'string', description: 'Running header text.' },
        footer: { type: 'string', description: 'Running footer; `{page}` and `{pages}` are replaced by the page number and count.' },
        direction: { enum: ['ltr', 'rtl'] },
        pageSize: { enum: ['A4'] },
        fontFamily: { type: 'string', description: 'The family to set the body text in.' },
        uncoveredLanguages: { type: 'array', items: { $ref: 'LanguageCode' }, description: 'Languages of the version that no served font covers.' },
      },
    },
    entries: {
      type: 'array',
      description: 'In document order.',
      items: {
        type: 'object',
        required: ['slug', 'kind', 'level', 'heading', 'title', 'summary', 'bodyMd', 'language', 'fallback'],
        properties: {
          slug: { $ref: 'NodeSlug' },
          kind: { enum: ['section', 'topic'] },
          level: { type: 'integer', minimum: 1, description: 'Depth in the tree: 1 for top-level nodes.' },
          heading: { type: 'boolean', description: 'An ancestor of the chosen topics, shown as a chapter title only (no body).' },
          title: { type: 'string' },
          summary: { type: 'string' },
          bodyMd: { type: 'string' },
          language: { $ref: 'LanguageCode', description: 'The language served for this entry.' },
          fallback: { type: 'boolean', description: 'True when the requested language is missing and another is served.' },
        },
      },
    },
    fonts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['family', 'weight', 'style', 'format', 'url', 'languages'],
        properties: {
          family: { type: 'string' },
          weight: { enum: [400, 700] },
          style: { enum: ['normal', 'italic'] },
          format: { const: 'truetype' },
          url: { type: 'string', description: 'Served by this service under /help/v1/fonts/.' },
          languages: { type: 'array', items: { $ref: 'LanguageCode' }, description: 'Languages of the version this family is for (empty: Latin text in any language).' },
        },
      },
    },
    filename: { type: 'string', description: 'Built from the version label and slug, the language and the selection.' },
  },
} as const;

export const pdfSchemas = [PdfBundleQuery, PdfBundle];
