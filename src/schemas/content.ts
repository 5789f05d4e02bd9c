import { nodeFieldNames, nodeFields, pagedQuery, translationFieldNames, translationFields, withHint } from './common.ts';

/** Schemas of the read endpoints: tree, topic, node list, one translation. */

const NodeLink = {
  type: 'object',
  required: ['slug', 'title'],
  properties: { slug: { $ref: 'NodeSlug' }, kind: { enum: ['section', 'topic'] }, title: { type: 'string' } },
} as const;

export const TreeEntry = {
  $id: 'TreeEntry',
  type: 'object',
  required: ['id', 'slug', 'kind', 'icon', 'sortOrder', 'title', 'summary', 'language', 'children'],
  properties: {
    id: { type: 'string' },
    slug: { $ref: 'NodeSlug' },
    kind: { enum: ['section', 'topic'] },
    icon: { $ref: 'Icon' },
    sortOrder: { $ref: 'SortKey' },
    title: { type: 'string' },
    summary: { type: 'string' },
    language: { $ref: 'LanguageCode', description: 'The language the title is in (differs from the request when it fell back).' },
    children: { type: 'array', items: { $ref: 'TreeEntry' } },
  },
} as const;

export const Tree = {
  $id: 'Tree',
  type: 'object',
  required: ['version', 'language', 'tree'],
  properties: {
    version: { $ref: 'Version' },
    language: { $ref: 'LanguageCode', description: 'The language requested.' },
    tree: { type: 'array', items: { $ref: 'TreeEntry' } },
  },
} as const;

export const Topic = {
  $id: 'Topic',
  type: 'object',
  required: ['version', 'versionStatus', 'id', 'slug', 'kind', 'parentSlug', 'icon', 'language', 'requestedLanguage', 'fallback', 'title', 'summary', 'bodyMd', 'updatedAt', 'availableLanguages', 'breadcrumbs', 'neighbours'],
  properties: {
    version: { $ref: 'VersionSlug' },
    versionStatus: { enum: ['draft', 'published', 'archived'] },
    id: { type: 'string' },
    slug: { $ref: 'NodeSlug' },
    kind: { enum: ['section', 'topic'] },
    parentSlug: { type: ['string', 'null'] },
    icon: { $ref: 'Icon' },
    language: { $ref: 'LanguageCode', description: 'The language served.' },
    requestedLanguage: { $ref: 'LanguageCode' },
    fallback: { type: 'boolean', description: 'True when the requested language is missing and another (English first, then the primary language) is served.' },
    title: { type: 'string' },
    summary: { type: 'string' },
    bodyMd: { type: 'string' },
    updatedAt: { $ref: 'Timestamp', description: 'Stamp of the served translation.' },
    outdated: { const: true, description: 'Present when the primary-language text has changed (not by a minor edit) since this translation was last written: the translation lags behind it.' },
    primaryUpdatedAt: { $ref: 'Timestamp', description: "With `outdated`: the primary-language translation's stamp, later than this one's base." },
    availableLanguages: { type: 'array', items: { $ref: 'LanguageCode' } },
    breadcrumbs: { type: 'array', items: NodeLink, description: 'Ancestors, outermost first.' },
    neighbours: {
      type: 'object',
      required: ['previous', 'next'],
      description: 'The topics before and after this node in document order (sections are skipped).',
      properties: { previous: { oneOf: [NodeLink, { type: 'null' }] }, next: { oneOf: [NodeLink, { type: 'null' }] } },
    },
    revision: { type: 'string', pattern: '^[0-9a-f]{40}$', description: 'With `?revision=`: the commit the topic was read at.' },
  },
} as const;

const TranslationSummary = {
  type: 'object',
  required: ['title', 'summary', 'updatedAt', 'bodyChars'],
  properties: {
    title: { type: 'string' },
    summary: { type: 'string' },
    updatedAt: { $ref: 'Timestamp' },
    outdated: { const: true, description: 'Present when the primary-language text has changed (not by a minor edit) since this translation was last written: the translation lags behind it.' },
    primaryUpdatedAt: { $ref: 'Timestamp', description: "With `outdated`: the primary-language translation's stamp, later than this one's base." },
    bodyChars: { type: 'integer', minimum: 0 },
    bodyMd: { type: 'string', description: 'Only with `include=bodies` and a credential.' },
  },
} as const;

export const NodeListed = {
  $id: 'NodeListed',
  type: 'object',
  required: nodeFieldNames,
  properties: {
    ...nodeFields,
    translations: { type: 'object', additionalProperties: TranslationSummary },
  },
} as const;

export const NodeList = {
  $id: 'NodeList',
  type: 'object',
  required: ['version', 'status', 'nodes'],
  properties: {
    version: { $ref: 'VersionSlug' },
    status: { enum: ['draft', 'published', 'archived'] },
    nodes: { type: 'array', items: { $ref: 'NodeListed' }, description: 'Document order.' },
  },
} as const;

export const TranslationRead = {
  $id: 'TranslationRead',
  type: 'object',
  required: [...translationFieldNames, 'availableLanguages'],
  properties: {
    ...translationFields,
    outdated: { const: true, description: 'Present when the primary-language text has changed (not by a minor edit) since this translation was last written: the translation lags behind it.' },
    primaryUpdatedAt: { $ref: 'Timestamp', description: "With `outdated`: the primary-language translation's stamp, later than this one's base." },
    availableLanguages: { type: 'array', items: { $ref: 'LanguageCode' } },
    revision: { type: 'string', pattern: '^[0-9a-f]{40}$', description: 'With `?revision=`: the commit the translation was read at.' },
  },
} as const;

export const LanguageQuery = {
  $id: 'LanguageQuery',
  type: 'object',
  properties: { language: { $ref: 'LanguageCode', description: 'Default `en`; falls back to English, then the primary language, per node.' } },
} as const;

export const NodesQuery = {
  $id: 'NodesQuery',
  type: 'object',
  properties: { include: { enum: ['bodies'], description: '`bodies` adds `bodyMd` to every translation; takes effect only with a credential.' } },
} as const;

export const VersionsQuery = {
  $id: 'VersionsQuery',
  type: 'object',
  properties: {
    includeWorkingCopies: { enum: ['true', 'false'], description: '`true` adds hidden working copies; authenticated callers only.' },
    ...pagedQuery({
      max: 1000,
      limit: 'At most this many versions (1 to 1000); the `Link` header (`rel="next"`) names the next page. Without it, every version.',
      cursor: {
        pattern: '^[A-Za-z0-9_-]{1,400}$',
        description: "Where the page starts: the cursor of the previous page's `Link` header. Opaque; pages stay consistent while versions are added or removed.",
        hint: "must be the cursor of a previous page's Link header, as it was given",
      },
    }),
  },
} as const;



export const SearchQuery = {
  $id: 'SearchQuery',
  type: 'object',
  required: ['q'],
  properties: {
    q: { type: 'string', minLength: 1, maxLength: 200, description: 'The words to find, 1 to 200 characters.' },
    lang: { $ref: 'LanguageCode', description: 'Language to search in, one of the version\'s `languages` (400 `language_not_enabled` otherwise); default `en`, or the version\'s primary language when it has no English. (The parameter is `lang` here, not `language`.)' },
    order: { enum: ['document', 'relevance'], description: '`document` (the default): every word must match, up to 50 hits in document order. `relevance`: hits ranked best first, typos and word forms forgiven, a page missing a word still listed below those that have them all; see `limit` and `offset`.' },
    limit: withHint({ type: 'string', pattern: '^(?:[1-9]|[1-4][0-9]|50)$', description: 'With `order=relevance`: hits per answer, 1 to 50 (default 10).' } as const, 'must be a whole number from 1 to 50'),
    offset: withHint({ type: 'string', pattern: '^(?:0|[1-9][0-9]{0,3})$', description: 'With `order=relevance`: hits of better rank to skip, 0 to 9999 (default 0): `offset=10` is the second page of ten.' } as const, 'must be a whole number from 0 to 9999'),
  },
} as const;

export const SearchResult = {
  $id: 'SearchResult',
  type: 'object',
  required: ['version', 'language', 'query', 'hits'],
  properties: {
    version: { $ref: 'VersionSlug' },
    language: { $ref: 'LanguageCode' },
    query: { type: 'string' },
    partial: { const: true, description: 'Present when a word of the query matched more than 5,000 terms and only the first were looked at: the hits are matches, but some may be missing.' },
    hits: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        required: ['slug', 'title', 'summary', 'snippet'],
        properties: { slug: { $ref: 'NodeSlug' }, title: { type: 'string' }, summary: { type: 'string' }, snippet: { type: 'string', description: 'Plain text around the first match, without Markdown syntax.' } },
      },
    },
  },
} as const;
export const RankedSearchResult = {
  $id: 'RankedSearchResult',
  type: 'object',
  required: ['version', 'language', 'query', 'order', 'offset', 'limit', 'total', 'hits'],
  properties: {
    version: { $ref: 'VersionSlug' },
    language: { $ref: 'LanguageCode' },
    query: { type: 'string' },
    order: { const: 'relevance' },
    offset: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 50 },
    total: { type: 'integer', minimum: 0, description: 'How many topics matched (some of the words are enough); a lower bound when `partial` is present.' },
    partial: { const: true, description: 'Present when a word of the query started so many terms that only the first were looked at: some matches may be missing, and `total` is a lower bound.' },
    suggestion: { type: 'string', description: 'Present when nothing matched and the query with its words replaced by the nearest terms of the version finds something: "did you mean".' },
    hits: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        required: ['slug', 'title', 'summary', 'language', 'score', 'snippet', 'highlights', 'heading', 'breadcrumbs'],
        properties: {
          slug: { $ref: 'NodeSlug' },
          title: { type: 'string' },
          summary: { type: 'string' },
          language: { $ref: 'LanguageCode' },
          score: { type: 'number', description: 'Relevance, higher is better; comparable within one answer only.' },
          snippet: { type: 'string', description: 'Plain text around the passage that matched best (not merely the first occurrence), without Markdown syntax.' },
          highlights: {
            type: 'array',
            description: 'The matched words in `snippet`: [start, end) offsets in UTF-16 code units (JavaScript string indexes), ascending, not overlapping.',
            items: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'integer', minimum: 0 } },
          },
          heading: {
            description: 'The section the passage is in: its heading and the id the portal gives it (link to `…/{slug}#{anchor}`); null when the passage is before the first heading or the match is in the title or summary only.',
            oneOf: [{ type: 'object', required: ['text', 'anchor'], properties: { text: { type: 'string' }, anchor: { type: 'string' } } }, { type: 'null' }],
          },
          breadcrumbs: {
            type: 'array',
            description: 'The node\'s ancestors, the root first, titled in the searched language (the primary language where a node has no translation).',
            items: { type: 'object', required: ['slug', 'title'], properties: { slug: { $ref: 'NodeSlug' }, title: { type: 'string' } } },
          },
        },
      },
    },
  },
} as const;

/** Either answer of the search, by its `order` (anyOf: a ranked answer has every field a document-order one requires). */
export const SearchAnswer = {
  $id: 'SearchAnswer',
  anyOf: [{ $ref: 'SearchResult' }, { $ref: 'RankedSearchResult' }],
} as const;

/** `GET /versions/{version}/links`: every broken internal link of the version (docs/content-format.md#links). */
export const LinksReport = {
  $id: 'LinksReport',
  type: 'object',
  required: ['version', 'broken', 'checked'],
  properties: {
    version: { $ref: 'VersionSlug' },
    broken: {
      type: 'array',
      description: 'In document order, then in the version\'s language order, then by line. At most 10,000 (see `omitted`).',
      items: {
        type: 'object',
        required: ['path', 'line', 'link', 'target', 'reason'],
        properties: {
          path: { type: 'string', description: 'The content file holding the link, `{lang}/{slug}.md` in the version\'s folder.' },
          line: { type: 'integer', minimum: 1, description: 'Its line in that file, front matter counted.' },
          link: { type: 'string', description: 'The destination as written (escapes decoded).' },
          target: { type: 'string', description: 'The node slug the link names.' },
          anchor: { type: 'string', description: 'The heading anchor it names, if any.' },
          language: { type: 'string', description: 'The language it names (`?lang=`, or the folder of a `../{lang}/{slug}.md` link), if any.' },
          reason: {
            enum: ['missing_topic', 'missing_anchor', 'missing_language', 'moved'],
            description:
              'No node with that slug; no heading with that anchor on the page the link opens; no such language in the version (or, for a file link, no translation in it); or `moved`: the slug is a renamed node\'s old one; the link still opens the page (through its redirect) and should name `movedTo` instead (a heading or language it names is checked once it does).',
          },
          movedTo: { type: 'string', description: 'For `moved`: the slug the node has now.' },
        },
      },
    },
    checked: { type: 'integer', minimum: 0, description: 'Internal links read (valid and broken); links to other sites are neither counted nor fetched.' },
    omitted: { type: 'integer', minimum: 1, description: 'Broken links beyond the first 10,000, counted and not listed.' },
    unchecked: { type: 'array', items: { type: 'string' }, description: 'Files whose bodies are too long for all their links to be read (past 200,000 characters of linked text or 1,000 links); present when there are any.' },
  },
  examples: [
    {
      version: 'v2',
      broken: [
        { path: 'de/invite-people.md', line: 14, link: '../roles#admins', target: 'roles', anchor: 'admins', reason: 'missing_topic' },
        { path: 'en/create-account.md', line: 9, link: 'invite-people#guests', target: 'invite-people', anchor: 'guests', reason: 'missing_anchor' },
        { path: 'en/roles.md', line: 6, link: 'setup', target: 'setup', reason: 'moved', movedTo: 'install' },
      ],
      checked: 31,
    },
  ],
} as const;

export const contentSchemas = [TreeEntry, Tree, Topic, NodeListed, NodeList, TranslationRead, LanguageQuery, NodesQuery, VersionsQuery, SearchQuery, SearchResult, RankedSearchResult, SearchAnswer, LinksReport];
