import { revisionOf } from '../content/translation-base.ts';
import { createHmac } from 'node:crypto';
import { UNKNOWN_KEY } from '../auth/key-file.ts';
import { KEYS, PUBLIC_URL, PUBLISHING, STAMPS, V1, V2, V2_NODES, type StoryNode, type StoryTranslation, type StoryVersion } from './story.ts';
import { WEBHOOK_EXAMPLES } from './webhook-examples.ts';
import { FEEDBACK_EXAMPLES } from './feedback-examples.ts';
import { HISTORY_EXAMPLES } from './history-examples.ts';

/**
 * The examples of openapi.json, by operationId: parameter values, request bodies, and answers by
 * status. They tell one story (src/schemas/story.ts: Tasklane's help, version v2) and they are true:
 * test/openapi-examples.test.ts validates each against the schema it illustrates, and sends each
 * answer's request (`sent`) to a real service holding the story, comparing what comes back.
 *
 * Every operation needs an entry: a request body example when it takes a body, an answer for each
 * JSON success status, and at least one error answer. The test fails for an operation without them.
 */

export interface Example {
  summary: string;
  value: unknown;
}

/** Who sends a request. */
export type Caller = 'anonymous' | 'writer' | 'reader' | 'revoked key';

/** The request an answer is the answer to, as far as it differs from the operation's defaults. */
export interface Sent {
  /** Path parameters other than the operation's parameter examples. */
  path?: Record<string, string>;
  /** The query string. */
  query?: Record<string, string>;
  /** The request body: the name of one of the operation's request examples (default: the first). */
  body?: string;
  headers?: Record<string, string>;
  /** Default: nobody for public operations, the documentation team's key (help:read, help:write) for the others. */
  as?: Caller;
}

export interface Answer extends Example {
  sent?: Sent;
}

export interface OperationExamples {
  /** Path, query and header parameters, by name. Path parameters are what answers are sent with unless `sent.path` says otherwise. */
  parameters?: Record<string, string>;
  /** Request bodies, by name; the first is the default. */
  requests?: Record<string, Example>;
  /** Answers by status, then by name. */
  responses: Record<number, Record<string, Answer>>;
}

/** An operation as the examples need to know it. */
export interface OperationRef {
  method: string;
  /** OpenAPI path template below the base path, e.g. `/versions/{version}`. */
  path: string;
  public: boolean;
}

export interface ExampleRequest {
  method: string;
  /** Below the base path, with the query string. */
  path: string;
  headers: Record<string, string>;
  /** The request example sent as the body, if any. */
  bodyExample?: Example & { name: string };
  body?: unknown;
  as: Caller;
}

/** The request that produced `answer`: what the description in openapi.json says, and what the test sends. */
export function exampleRequest(op: OperationRef, examples: OperationExamples, answer: Answer): ExampleRequest {
  const sent = answer.sent ?? {};
  const values = { ...examples.parameters, ...sent.path };
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`No example value for the path parameter ${name} of ${op.method} ${op.path}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(sent.query ?? {}).toString();
  const bodyName = sent.body ?? Object.keys(examples.requests ?? {})[0];
  const out: ExampleRequest = { method: op.method.toUpperCase(), path: query ? `${path}?${query}` : path, headers: { ...sent.headers }, as: sent.as ?? (op.public ? 'anonymous' : 'writer') };
  if (bodyName !== undefined) {
    const body = examples.requests?.[bodyName];
    if (body === undefined) throw new Error(`${op.method} ${op.path} has no request example "${bodyName}"`);
    out.bodyExample = { name: bodyName, ...body };
    out.body = body.value;
  }
  return out;
}

const CALLERS: Record<Caller, string> = {
  anonymous: 'without a credential',
  writer: 'with a key that has help:read and help:write',
  reader: 'with a key that has only help:read',
  'revoked key': 'with a revoked key',
};

/** One line of Markdown saying which request an answer answers. */
export function describeRequest(req: ExampleRequest, basePath: string): string {
  const parts = [`\`${req.method} ${basePath}${req.path}\``];
  // Swagger UI lists request examples by their summaries.
  if (req.bodyExample !== undefined) parts.push(`with the request body “${req.bodyExample.summary}”`);
  for (const [name, value] of Object.entries(req.headers)) parts.push(`with the header \`${name}: ${value}\``);
  parts.push(CALLERS[req.as]);
  return `The answer to ${parts.join(', ')}.`;
}

// ---------------------------------------------------------------------------------------------
// The shapes of the story, as the API presents them.

/** Request ids are the service's own; any value stands for them. */
const REQUEST_ID = '7d2c9e41-5a8b-4f30-b6e2-00000000002a';

const error = (code: string, message: string, details: Record<string, unknown> = {}) => ({ error: { code, message, ...details, requestId: REQUEST_ID } });

const version = (v: StoryVersion, changes: Partial<StoryVersion> = {}) => ({ ...v, ...changes });

const nodeOf = (slug: string): StoryNode => {
  const node = V2_NODES.find((n) => n.slug === slug);
  if (!node) throw new Error(`No node ${slug} in the story`);
  return node;
};

const newest = (stamps: string[]) => stamps.reduce((a, b) => (a > b ? a : b));

/** A node's stamp: the newest of its translations' (the story's nodes last changed with them). */
const nodeUpdatedAt = (n: StoryNode) => newest(Object.values(n.translations).map((t) => t.updatedAt));

/** The translation a reader of `language` gets: that language, else English, else the primary one. */
function pick(n: StoryNode, language: string): [string, StoryTranslation] {
  for (const candidate of [language, 'en', V2.languages[0]]) if (n.translations[candidate]) return [candidate, n.translations[candidate]];
  throw new Error(`${n.slug} has no translation to fall back to`);
}

const mapTranslations = <T>(n: StoryNode, f: (t: StoryTranslation) => T): Record<string, T> =>
  Object.fromEntries(V2.languages.filter((l) => n.translations[l]).map((l) => [l, f(n.translations[l])]));

const nodeWrite = (n: StoryNode) => ({
  id: n.id,
  slug: n.slug,
  kind: n.kind,
  parentSlug: n.parentSlug,
  icon: n.icon,
  sortOrder: n.sortOrder,
  updatedAt: nodeUpdatedAt(n),
  translations: mapTranslations(n, (t) => ({ updatedAt: t.updatedAt })),
});

const listedNode = (n: StoryNode) => ({
  id: n.id,
  slug: n.slug,
  kind: n.kind,
  parentSlug: n.parentSlug,
  sortOrder: n.sortOrder,
  icon: n.icon,
  updatedAt: nodeUpdatedAt(n),
  translations: mapTranslations(n, (t) => ({ title: t.title, summary: t.summary, updatedAt: t.updatedAt, bodyChars: t.bodyMd.length })),
});

const exportedNode = (n: StoryNode) => ({
  id: n.id,
  slug: n.slug,
  kind: n.kind,
  parentSlug: n.parentSlug,
  icon: n.icon,
  sortOrder: n.sortOrder,
  updatedAt: nodeUpdatedAt(n),
  translations: mapTranslations(n, (t) => ({ title: t.title, summary: t.summary, bodyMd: t.bodyMd, updatedAt: t.updatedAt })),
});

function treeEntries(parentSlug: string | null, language: string): unknown[] {
  return V2_NODES.filter((n) => n.parentSlug === parentSlug).map((n) => {
    const [served, t] = pick(n, language);
    return { id: n.id, slug: n.slug, kind: n.kind, icon: n.icon, sortOrder: n.sortOrder, title: t.title, summary: t.summary, language: served, children: treeEntries(n.slug, language) };
  });
}

const link = (n: StoryNode, language: string) => ({ slug: n.slug, kind: n.kind, title: pick(n, language)[1].title });

function topic(slug: string, language: string) {
  const n = nodeOf(slug);
  const [served, t] = pick(n, language);
  const breadcrumbs: unknown[] = [];
  for (let p = n.parentSlug; p !== null; p = nodeOf(p).parentSlug) breadcrumbs.unshift(link(nodeOf(p), language));
  const at = V2_NODES.indexOf(n);
  const topics = (nodes: StoryNode[]) => nodes.filter((x) => x.kind === 'topic');
  const previous = topics(V2_NODES.slice(0, at)).pop();
  const next = topics(V2_NODES.slice(at + 1))[0];
  return {
    version: V2.slug,
    versionStatus: V2.status,
    id: n.id,
    slug,
    kind: n.kind,
    parentSlug: n.parentSlug,
    icon: n.icon,
    language: served,
    requestedLanguage: language,
    fallback: served !== language,
    title: t.title,
    summary: t.summary,
    bodyMd: t.bodyMd,
    updatedAt: t.updatedAt,
    availableLanguages: Object.keys(mapTranslations(n, (x) => x)),
    breadcrumbs,
    neighbours: { previous: previous ? link(previous, language) : null, next: next ? link(next, language) : null },
  };
}

/** The German translation of keyboard-shortcuts, which the examples add (v2 has it in English only). */
const KEYBOARD_DE = {
  title: 'Tastenkürzel',
  summary: 'Bewege dich durch Tasklane und bearbeite Aufgaben, ohne die Maus zu benutzen.',
  bodyMd: '## Alle Tastenkürzel anzeigen\n\nDrücke an beliebiger Stelle in Tasklane `?`, um die Übersicht der Tastenkürzel zu öffnen.\n',
};

/** A topic the examples add to Getting started, after its two topics. */
const INVITE_PEOPLE = {
  slug: 'invite-people',
  kind: 'topic',
  parentSlug: 'getting-started',
  sortOrder: 30,
  translations: {
    en: { title: 'Invite people', summary: 'Add colleagues to your workspace by email or with an invite link.', bodyMd: '## Invite by email\n\nOpen **Settings → Members** and click **Invite**.\n' },
    de: { title: 'Personen einladen', summary: 'Lade Kolleginnen und Kollegen per E-Mail oder Einladungslink ein.', bodyMd: '## Per E-Mail einladen\n\nÖffne **Einstellungen → Mitglieder** und klicke auf **Einladen**.\n' },
  },
};

// ---------------------------------------------------------------------------------------------
// Content files: what a content repository holds for v2 (hand-written: no ids, no stamps).

const markdown = (t: Pick<StoryTranslation, 'title' | 'summary' | 'bodyMd'>) => `---\ntitle: ${t.title}\nsummary: ${t.summary}\n---\n${t.bodyMd}`;

/** A node's sort key as version.json holds it: only where it is not the entry's index among its siblings. */
const keyOf = (n: StoryNode, index: number) => (n.sortOrder === index ? {} : { sortOrder: n.sortOrder });

function navOf(parentSlug: string | null): unknown[] {
  return V2_NODES.filter((n) => n.parentSlug === parentSlug).map((n, i) => {
    const children = navOf(n.slug);
    if (n.kind === 'topic' && n.icon === null && children.length === 0 && n.sortOrder === i) return n.slug;
    return { slug: n.slug, ...(n.icon ? { icon: n.icon } : {}), ...keyOf(n, i), ...(children.length > 0 ? { children } : {}) };
  });
}

/** v2 in the content repository, with the German keyboard shortcuts that the service does not have yet. */
function repositoryFiles(folder: string) {
  const versionJson = { label: V2.label, status: V2.status, isLatest: V2.isLatest, languages: V2.languages, nav: navOf(null) };
  const files = [{ path: `${folder}/version.json`, content: `${JSON.stringify(versionJson, null, 2)}\n` }];
  for (const n of V2_NODES) {
    for (const language of V2.languages) {
      const t = n.slug === 'keyboard-shortcuts' && language === 'de' ? KEYBOARD_DE : n.translations[language];
      if (t) files.push({ path: `${folder}/${language}/${n.slug}.md`, content: markdown(t) });
    }
  }
  return files;
}

// ---------------------------------------------------------------------------------------------
// Publishing through pull requests: a working copy of v2 gets the German keyboard shortcuts.

const WORKING_COPY = version(V2, { slug: 'v2-wip', status: 'draft', isLatest: false, hidden: true, workingCopyOf: 'v2', createdAt: STAMPS.now, updatedAt: STAMPS.now });

const PUBLISH_SUMMARY = {
  created: 0,
  updated: 1,
  deleted: 0,
  unchanged: 5,
  slugs: { created: [], updated: ['keyboard-shortcuts'], deleted: [] },
  renamed: [],
  languages: { de: { created: ['keyboard-shortcuts'], updated: [], deleted: [] } },
};

const publishRequest = (changes: Record<string, unknown> = {}) => ({
  id: PUBLISHING.requestId,
  targetSlug: 'v2',
  sourceSlug: 'v2-wip',
  prNumber: PUBLISHING.prNumber,
  prUrl: PUBLISHING.prUrl,
  branch: PUBLISHING.branch,
  status: 'open',
  summary: PUBLISH_SUMMARY,
  counts: { created: 0, updated: 1, deleted: 0, unchanged: 5, files: PUBLISHED_FILES.length },
  author: KEYS.writer.name,
  createdAt: PUBLISHING.openedAt,
  updatedAt: PUBLISHING.openedAt,
  mergedAt: null,
  closedAt: null,
  importedAt: null,
  failure: null,
  ...changes,
});

/** Files as the service writes them: version.json with ids, frontmatter with title and summary; no stamps (the service keeps those apart). */
function serviceFiles(folder: string, v: StoryVersion, nodes: StoryNode[]) {
  const nav = (parentSlug: string | null): unknown[] =>
    nodes
      .filter((n) => n.parentSlug === parentSlug)
      .map((n, i) => {
        const children = nav(n.slug);
        return { slug: n.slug, kind: n.kind, id: n.id, ...(n.icon ? { icon: n.icon } : {}), ...keyOf(n, i), ...(children.length > 0 ? { children } : {}) };
      });
  const versionJson = { label: v.label, status: v.status, isLatest: v.isLatest, languages: v.languages, sortOrder: v.sortOrder, nav: nav(null) };
  const files = [{ path: `${folder}/version.json`, content: `${JSON.stringify(versionJson, null, 2)}\n` }];
  for (const n of nodes) {
    for (const language of v.languages) {
      const t = n.translations[language];
      const base = (t as { basedOn?: string } | undefined)?.basedOn;
      if (t) files.push({ path: `${folder}/${language}/${n.slug}.md`, content: `---\ntitle: ${t.title}\nsummary: ${t.summary}\n${base ? `basedOn: "${base}"\n` : ''}---\n${t.bodyMd}` });
    }
  }
  return files;
}

/** v2 with the working copy's change: what the pull request commits under docs/v2. */
const PUBLISHED_FILES = serviceFiles(
  'docs/v2',
  V2,
  // Written through the API, the German page records the English text it was brought in line with.
  V2_NODES.map((n) => (n.slug === 'keyboard-shortcuts' ? { ...n, translations: { ...n.translations, de: { ...KEYBOARD_DE, updatedAt: STAMPS.now, basedOn: revisionOf(n.translations.en!) } } } : n)),
);

const UNKNOWN_REQUEST = '00000000-0000-4000-8000-000000000000';

const WEBHOOK_DELIVERY = {
  action: 'closed',
  number: PUBLISHING.prNumber,
  pull_request: { number: PUBLISHING.prNumber, state: 'closed', merged: true, merged_at: PUBLISHING.mergedAt, closed_at: PUBLISHING.mergedAt, title: 'Publish v2' },
  repository: { full_name: PUBLISHING.repository },
};

/** GitHub's signature of a delivery with the story's webhook secret. */
const signature = (body: unknown) => `sha256=${createHmac('sha256', PUBLISHING.webhookSecret).update(JSON.stringify(body)).digest('hex')}`;

// ---------------------------------------------------------------------------------------------
// The PDF bundle of the Getting started section, in German.

function pdfBundle() {
  const section = ['getting-started', 'create-account', 'first-project'].map(nodeOf);
  const font = (weight: number, style: 'normal' | 'italic' = 'normal') => ({
    family: 'Noto Sans',
    weight,
    style,
    format: 'truetype',
    url: `${PUBLIC_URL}/help/v1/fonts/noto-sans-${weight}${style === 'italic' ? '-italic' : ''}.ttf`,
    languages: ['en', 'de'],
  });
  return {
    version: { slug: V2.slug, label: V2.label, status: V2.status, languages: V2.languages },
    language: 'de',
    template: {
      title: V2.label,
      subtitle: section[0].translations.de.title,
      date: STAMPS.now.slice(0, 10),
      titlePage: true,
      tableOfContents: true,
      header: V2.label,
      footer: '{page} / {pages}',
      direction: 'ltr',
      pageSize: 'A4',
      fontFamily: 'Noto Sans',
      uncoveredLanguages: [],
    },
    entries: section.map((n) => {
      const t = n.translations.de;
      return { slug: n.slug, kind: n.kind, level: n.parentSlug === null ? 1 : 2, heading: false, title: t.title, summary: t.summary, bodyMd: t.bodyMd, language: 'de', fallback: false };
    }),
    fonts: [font(400), font(700), font(400, 'italic'), font(700, 'italic')],
    filename: 'tasklane-2-0-v2-de-getting-started.pdf',
  };
}

// ---------------------------------------------------------------------------------------------

const REVOKED = { as: 'revoked key' } as const;
const UNAUTHORIZED = { revoked: { summary: 'A revoked key', sent: REVOKED, value: error('unauthorized', UNKNOWN_KEY) } };
const NO_VERSION = (summary = 'An unknown version') => ({ unknownVersion: { summary, sent: { path: { version: 'v9' } }, value: error('not_found', 'No version "v9"', { resource: 'version', version: 'v9' }) } });
const NO_NODE = (sent: Sent = {}) => ({ unknownNode: { summary: 'An unknown node', sent: { path: { slug: 'install' }, ...sent }, value: error('not_found', 'No node "install" in version "v2"', { resource: 'node', version: 'v2', slug: 'install' }) } });
const INSUFFICIENT_SCOPE = { readOnlyKey: { summary: 'A key without help:write', sent: { as: 'reader' as const }, value: error('insufficient_scope', `Key "${KEYS.reader.name}" lacks the scope help:write that this endpoint needs`, { required: 'help:write', scopes: ['help:read'] }) } };
/** The answer to a write based on a read older than the resource's last change, `current`. */
const staleWrite = (what: string, current: string, by = 'expectedUpdatedAt') =>
  error('stale_write', `${what} changed at ${current}, after ${by} ${STAMPS.stale}; read it again and retry`, { currentUpdatedAt: current, expectedUpdatedAt: STAMPS.stale });

/** Operations whose success is not JSON (pages, scripts, fonts, this document): a wrong credential is their typical error. */
const notJson = (): OperationExamples => ({ responses: { 401: UNAUTHORIZED } });

/** The German translation that keyboard-shortcuts lacks: read or deleted, the answer is the same 404. */
const NO_GERMAN_TRANSLATION = {
  summary: 'No German translation',
  sent: { path: { slug: 'keyboard-shortcuts' } },
  value: error('not_found', 'Node "keyboard-shortcuts" has no de translation', { resource: 'translation', version: 'v2', slug: 'keyboard-shortcuts', language: 'de' }),
};

export const EXAMPLES: Record<string, OperationExamples> = {
  // ---- Versions
  listVersions: {
    parameters: { includeWorkingCopies: 'true' },
    responses: {
      200: { published: { summary: 'The published versions, newest first', value: [version(V2), version(V1)] } },
      400: {
        invalidQuery: {
          summary: 'A query parameter with a value it cannot take',
          sent: { query: { includeWorkingCopies: 'yes' } },
          value: error('validation_failed', 'query/includeWorkingCopies must be one of "true", "false"', {
            field: 'query/includeWorkingCopies',
            errors: [{ field: 'query/includeWorkingCopies', message: 'must be one of "true", "false"' }],
          }),
        },
      },
      401: UNAUTHORIZED,
    },
  },
  getVersion: {
    parameters: { version: 'v2' },
    responses: {
      200: { published: { summary: 'A published version', value: version(V2) } },
      404: NO_VERSION(),
      401: UNAUTHORIZED,
    },
  },
  createVersion: {
    requests: {
      v3: { summary: 'A draft for the next release', value: { slug: 'v3', label: 'Tasklane 3.0', languages: ['en', 'de'], sortOrder: 30 } },
      existing: { summary: 'A slug that is taken', value: { slug: 'v2', label: 'Tasklane 2.0' } },
      latestDraft: { summary: 'Latest, but not published', value: { slug: 'v3', isLatest: true } },
    },
    responses: {
      200: { created: { summary: 'The new draft', value: version({ ...V2, slug: 'v3', label: 'Tasklane 3.0', status: 'draft', isLatest: false, sortOrder: 30, createdAt: STAMPS.now, updatedAt: STAMPS.now }) } },
      403: INSUFFICIENT_SCOPE,
      409: {
        conflict: { summary: 'The slug exists', sent: { body: 'existing' }, value: error('conflict', 'Version "v2" already exists', { field: 'body/slug', slug: 'v2' }) },
        invalidState: {
          summary: 'Only a published version can be latest',
          sent: { body: 'latestDraft' },
          value: error('invalid_state', 'Version "v3" must be published to be marked latest (its status would be draft)', { field: 'body/isLatest', status: 'draft' }),
        },
      },
    },
  },
  updateVersion: {
    parameters: { version: 'v2', 'If-Unmodified-Since': STAMPS.v2Published },
    requests: {
      addFrench: { summary: 'Enable French', value: { languages: ['en', 'de', 'fr'] } },
      dropGerman: { summary: 'Remove German', value: { languages: ['en'] } },
      stale: { summary: 'A change based on an old read', value: { label: 'Tasklane 2.0 (October)', expectedUpdatedAt: STAMPS.stale } },
    },
    responses: {
      200: { updated: { summary: 'French enabled', value: version(V2, { languages: ['en', 'de', 'fr'], updatedAt: STAMPS.now }) } },
      404: NO_VERSION(),
      409: {
        languageInUse: {
          summary: 'German still has translations',
          sent: { body: 'dropGerman' },
          value: error('language_in_use', 'Cannot remove de (5 translations) from version "v2"; delete those translations first', { field: 'body/languages', languages: ['de'] }),
        },
        staleWrite: { summary: 'Changed since it was read', sent: { body: 'stale' }, value: staleWrite('Version "v2"', V2.updatedAt) },
      },
    },
  },
  deleteVersion: {
    parameters: { version: 'v1' },
    responses: {
      200: { deleted: { summary: 'The old version is gone', value: { ok: true } } },
      404: NO_VERSION(),
    },
  },
  duplicateVersion: {
    parameters: { version: 'v2' },
    requests: {
      v3: { summary: 'Start the next release from v2', value: { slug: 'v3', label: 'Tasklane 3.0' } },
      existing: { summary: 'A slug that is taken', value: { slug: 'v1' } },
    },
    responses: {
      200: { copied: { summary: 'The copy, a draft', value: { version: version(V2, { slug: 'v3', label: 'Tasklane 3.0', status: 'draft', isLatest: false, createdAt: STAMPS.now, updatedAt: STAMPS.now }) } } },
      404: NO_VERSION('An unknown source version'),
      409: { conflict: { summary: 'The new slug exists', sent: { body: 'existing' }, value: error('conflict', 'Version "v1" already exists', { field: 'body/slug', slug: 'v1' }) } },
    },
  },

  // ---- Reading content
  getTree: {
    parameters: { version: 'v2', language: 'de' },
    responses: {
      200: {
        german: {
          summary: 'The tree in German (keyboard-shortcuts falls back to English)',
          sent: { query: { language: 'de' } },
          value: { version: version(V2), language: 'de', tree: treeEntries(null, 'de') },
        },
      },
      404: NO_VERSION(),
    },
  },
  getTopic: {
    parameters: { version: 'v2', slug: 'create-account', language: 'de' },
    responses: {
      200: {
        german: { summary: 'A topic in German', sent: { query: { language: 'de' } }, value: topic('create-account', 'de') },
        fallback: { summary: 'No German yet: English is served', sent: { path: { slug: 'keyboard-shortcuts' }, query: { language: 'de' } }, value: topic('keyboard-shortcuts', 'de') },
      },
      404: NO_NODE({ query: { language: 'de' } }),
    },
  },
  listNodes: {
    parameters: { version: 'v2', include: 'bodies' },
    responses: {
      200: { nodes: { summary: 'Every node, in document order', value: { version: 'v2', status: V2.status, nodes: V2_NODES.map(listedNode) } } },
      404: NO_VERSION(),
    },
  },
  getLinks: {
    parameters: { version: 'v2' },
    responses: {
      200: { none: { summary: 'No internal link of the version is broken', value: { version: 'v2', broken: [], checked: 0 } } },
      404: NO_VERSION(),
    },
  },
  getTranslationStatus: {
    parameters: { version: 'v2', lang: 'de' },
    responses: {
      200: {
        german: {
          summary: 'German: one page missing; the others imported without a base, so none known to be behind',
          value: {
            version: 'v2',
            primaryLanguage: 'en',
            languages: [{ language: 'de', translated: 5, untracked: 5, missing: [{ slug: 'keyboard-shortcuts', kind: 'topic', primaryTitle: 'Keyboard shortcuts' }], outdated: [] }],
          },
        },
      },
      401: UNAUTHORIZED,
      404: NO_VERSION(),
    },
  },
  getTranslation: {
    parameters: { version: 'v2', slug: 'create-account', lang: 'de' },
    responses: {
      200: {
        german: {
          summary: 'The German translation',
          value: { slug: 'create-account', language: 'de', ...nodeOf('create-account').translations.de, availableLanguages: ['en', 'de'] },
        },
      },
      404: { noTranslation: NO_GERMAN_TRANSLATION },
    },
  },
  search: {
    parameters: { version: 'v2', q: 'project', lang: 'en' },
    responses: {
      200: {
        hits: {
          summary: 'Four nodes mention projects',
          sent: { query: { q: 'project', lang: 'en' } },
          value: {
            version: 'v2',
            language: 'en',
            query: 'project',
            hits: [
              { slug: 'getting-started', title: 'Getting started', summary: nodeOf('getting-started').translations.en.summary, snippet: '…? These guides take you from signing up to a working project in about fifteen minutes.' },
              { slug: 'first-project', title: 'Set up your first project', summary: nodeOf('first-project').translations.en.summary, snippet: 'Create a project In the sidebar, click + next to Projects. Pick a template or start with a blank project. Click Create project.' },
              { slug: 'tasks-and-projects', title: 'Tasks and projects', summary: nodeOf('tasks-and-projects').translations.en.summary, snippet: 'Everything about day-to-day work in Tasklane.' },
              { slug: 'create-tasks', title: 'Create and organize tasks', summary: nodeOf('create-tasks').translations.en.summary, snippet: 'Create a task Press C anywhere inside a project, type a title and press Enter.' },
            ],
          },
        },
      },
      400: {
        noQuery: {
          summary: 'No `q`',
          value: error('validation_failed', 'query/q is required', { field: 'query/q', errors: [{ field: 'query/q', message: 'is required' }] }),
        },
      },
      404: { unknownVersion: { ...NO_VERSION().unknownVersion, sent: { path: { version: 'v9' }, query: { q: 'project' } } } },
    },
  },

  // ---- Export and import
  exportVersion: {
    parameters: { version: 'v2', format: 'json' },
    responses: {
      200: { document: { summary: 'The export document', value: { version: version(V2), nodes: V2_NODES.map(exportedNode) } } },
      404: NO_VERSION(),
    },
  },
  importDocument: {
    parameters: { version: 'v2' },
    requests: {
      invitePeople: {
        summary: 'Merge a new topic into v2',
        value: { mode: 'merge', nodes: [INVITE_PEOPLE] },
      },
      unknownParent: {
        summary: 'A topic under a section v2 does not have',
        value: { nodes: [{ slug: 'guest-access', parentSlug: 'team-and-permissions', translations: { en: { title: 'Guest access' } } }] },
      },
    },
    responses: {
      200: {
        merged: {
          summary: 'One topic created, in two languages',
          value: {
            dryRun: false,
            mode: 'merge',
            diff: {
              created: ['invite-people'],
              updated: [],
              unchanged: [],
              deleted: [],
              updatedTranslations: [
                { slug: 'invite-people', language: 'en' },
                { slug: 'invite-people', language: 'de' },
              ],
              deletedTranslations: [],
            },
            version: version(V2, { updatedAt: STAMPS.now }),
          },
        },
      },
      400: {
        invalidDocument: {
          summary: 'The document names a parent that does not exist',
          sent: { body: 'unknownParent' },
          value: error('invalid_document', 'The import document has 1 problem(s); first: guest-access: unknown parent "team-and-permissions"', {
            offending: [{ slug: 'guest-access', problem: 'unknown parent "team-and-permissions"', field: 'body/nodes/0/parentSlug' }],
          }),
        },
      },
    },
  },
  importFiles: {
    parameters: { version: 'v2', dryRun: 'true' },
    requests: {
      push: { summary: "v2's folder of the content repository, with a new German translation", value: { files: repositoryFiles('docs/v2') } },
      noTitle: {
        summary: 'A Markdown file without a title',
        value: {
          files: [
            { path: 'docs/v2/version.json', content: `${JSON.stringify({ label: V2.label, languages: V2.languages, nav: ['keyboard-shortcuts'] }, null, 2)}\n` },
            { path: 'docs/v2/en/keyboard-shortcuts.md', content: '---\nsummary: Move around Tasklane without touching the mouse.\n---\nPress `?` anywhere.\n' },
          ],
        },
      },
    },
    responses: {
      200: {
        imported: {
          summary: 'One node changed: its German translation is new',
          value: {
            dryRun: false,
            summary: { created: 0, updated: 1, deleted: 0, unchanged: 5, slugs: { created: [], updated: ['keyboard-shortcuts'], deleted: [] }, renamed: [] },
            warnings: [],
            version: { slug: 'v2', exists: true, status: 'published', isLatest: true },
            workingCopyDeleted: false,
            requestsImported: 0,
          },
        },
      },
      400: {
        invalidContent: {
          summary: 'Every problem, with its file and line',
          sent: { body: 'noTitle' },
          value: error('invalid_content', '1 problem(s) in the content files', {
            errors: [{ path: 'docs/v2/en/keyboard-shortcuts.md', line: 1, message: 'frontmatter "title" is required (1 to 200 characters)' }],
            warnings: [],
          }),
        },
      },
    },
  },

  // ---- Publishing through pull requests
  createWorkingCopy: {
    parameters: { version: 'v2' },
    responses: {
      200: { existed: { summary: 'The copy that was already there', value: { version: WORKING_COPY, existed: true } } },
      201: { created: { summary: 'A new hidden draft `v2-wip`', value: { version: WORKING_COPY, existed: false } } },
      404: NO_VERSION(),
    },
  },
  discardWorkingCopy: {
    parameters: { version: 'v2' },
    responses: {
      200: { discarded: { summary: 'The copy is gone', value: { ok: true, discarded: 'v2-wip' } } },
      404: { noCopy: { summary: 'No working copy', value: error('not_found', 'No working copy of "v2"', { resource: 'version', version: 'v2' }) } },
      409: {
        requestOpen: {
          summary: 'A publish request for it is open',
          value: error('request_open', `Publish request ${PUBLISHING.requestId} from v2-wip is open (pull request #${PUBLISHING.prNumber}); discarding the working copy waits until it is merged, closed or cancelled (DELETE /publish-requests/${PUBLISHING.requestId})`, { request: PUBLISHING.requestId, prUrl: PUBLISHING.prUrl }),
        },
      },
    },
  },
  createPublishRequest: {
    parameters: { version: 'v2-wip', dryRun: 'true' },
    responses: {
      200: {
        dryRun: {
          summary: 'What the pull request would hold',
          sent: { query: { dryRun: 'true' } },
          value: { dryRun: true, targetSlug: 'v2', summary: PUBLISH_SUMMARY, warnings: [], files: PUBLISHED_FILES },
        },
      },
      201: { opened: { summary: 'The pull request is open', value: { dryRun: false, request: publishRequest() } } },
      404: NO_VERSION(),
      409: {
        requestOpen: {
          summary: 'A request for v2 is open already',
          value: error('request_open', `Publish request ${PUBLISHING.requestId} from v2-wip is open (pull request #${PUBLISHING.prNumber}); a new request for v2 waits until it is merged, closed or cancelled (DELETE /publish-requests/${PUBLISHING.requestId})`, { request: PUBLISHING.requestId, prUrl: PUBLISHING.prUrl }),
        },
      },
    },
  },
  listPublishRequests: {
    parameters: { target: 'v2' },
    responses: {
      200: { open: { summary: 'One open request', sent: { query: { target: 'v2' } }, value: { requests: [publishRequest()] } } },
      403: INSUFFICIENT_SCOPE,
    },
  },
  cancelPublishRequest: {
    parameters: { id: PUBLISHING.requestId },
    responses: {
      200: { closed: { summary: 'Closed, its branch deleted', value: { request: publishRequest({ status: 'closed', closedAt: STAMPS.now, updatedAt: STAMPS.now }) } } },
      404: {
        unknown: {
          summary: 'An unknown request',
          sent: { path: { id: UNKNOWN_REQUEST } },
          value: error('not_found', `No publish request ${UNKNOWN_REQUEST}`, { resource: 'publish_request', id: UNKNOWN_REQUEST }),
        },
      },
      409: { notOpen: { summary: 'The request was closed already', value: error('request_not_open', `Publish request ${PUBLISHING.requestId} is closed, not open`, { status: 'closed' }) } },
    },
  },
  githubWebhook: {
    requests: { merged: { summary: 'GitHub tells that pull request #42 was merged', value: WEBHOOK_DELIVERY } },
    responses: {
      200: {
        handled: {
          summary: 'The publish request is marked merged',
          sent: { headers: { 'X-GitHub-Event': 'pull_request', 'X-Hub-Signature-256': signature(WEBHOOK_DELIVERY) } },
          value: { ok: true, handled: `request ${PUBLISHING.requestId} merged` },
        },
      },
      401: {
        unsigned: {
          summary: 'A delivery without a valid signature',
          sent: { headers: { 'X-GitHub-Event': 'pull_request' } },
          value: error('invalid_signature', 'X-Hub-Signature-256 is missing or does not match the configured secret'),
        },
      },
    },
  },
  getPushScript: notJson(),

  // ---- Writing nodes and translations
  createNode: {
    parameters: { version: 'v2' },
    requests: {
      invitePeople: { summary: 'A topic in two languages, third in its section', value: INVITE_PEOPLE },
      french: { summary: 'A language v2 does not enable', value: { slug: 'guest-access', parentSlug: 'getting-started', translations: { en: { title: 'Guest access' }, fr: { title: 'Accès invité' } } } },
      existing: { summary: 'A slug that is taken', value: { slug: 'create-tasks', translations: { en: { title: 'Create tasks' } } } },
    },
    responses: {
      200: {
        created: {
          summary: 'The new topic and its stamps',
          value: { id: '4a7b1e90-c2d3-4e58-9f16-b8a05c3d7e12', slug: 'invite-people', kind: 'topic', parentSlug: 'getting-started', icon: null, sortOrder: 30, updatedAt: STAMPS.now, translations: { en: { updatedAt: STAMPS.now }, de: { updatedAt: STAMPS.now } } },
        },
      },
      400: {
        languageNotEnabled: {
          summary: 'French is not enabled on v2',
          sent: { body: 'french' },
          value: error('language_not_enabled', 'Language fr is not enabled on version "v2" (languages: en, de)', { field: 'body/translations/fr', language: 'fr', languages: ['en', 'de'] }),
        },
      },
      409: { conflict: { summary: 'The slug exists', sent: { body: 'existing' }, value: error('conflict', 'Node "create-tasks" already exists in version "v2"', { field: 'body/slug', slug: 'create-tasks' }) } },
    },
  },
  updateNode: {
    parameters: { version: 'v2', slug: 'first-project', 'If-Unmodified-Since': STAMPS.v2German },
    requests: {
      edit: { summary: 'An icon and a new English summary', value: { icon: 'folder-plus', translations: { en: { summary: 'Create a project from a template, add tasks and invite your team.' } } } },
      stale: { summary: 'A change based on an old read', value: { icon: 'folder-plus', expectedUpdatedAt: STAMPS.stale } },
      rename: { summary: 'A new slug that is taken', value: { slug: 'create-account' } },
    },
    responses: {
      200: {
        edited: {
          summary: 'The node and its stamps',
          value: { ...nodeWrite(nodeOf('first-project')), icon: 'folder-plus', updatedAt: STAMPS.now, translations: { en: { updatedAt: STAMPS.now }, de: { updatedAt: STAMPS.v2German } } },
        },
      },
      404: NO_NODE({ body: 'edit' }),
      409: {
        staleWrite: { summary: 'Changed since it was read', sent: { body: 'stale' }, value: staleWrite('Node "first-project"', nodeUpdatedAt(nodeOf('first-project'))) },
        conflict: { summary: 'The new slug is taken', sent: { body: 'rename' }, value: error('conflict', 'Node "create-account" already exists in version "v2"', { field: 'body/slug', slug: 'create-account' }) },
      },
    },
  },
  deleteNode: {
    parameters: { version: 'v2', slug: 'tasks-and-projects', 'If-Unmodified-Since': STAMPS.v2German },
    responses: {
      200: { removed: { summary: 'A section and the topic inside it', value: { ok: true, removed: ['tasks-and-projects', 'create-tasks'] } } },
      404: NO_NODE(),
      409: {
        staleWrite: { summary: 'Changed after `If-Unmodified-Since`', sent: { headers: { 'If-Unmodified-Since': STAMPS.stale } }, value: staleWrite('Node "tasks-and-projects"', nodeUpdatedAt(nodeOf('tasks-and-projects')), 'If-Unmodified-Since') },
      },
    },
  },
  putTranslation: {
    parameters: { version: 'v2', slug: 'keyboard-shortcuts', lang: 'de', 'If-Unmodified-Since': STAMPS.v2German },
    requests: {
      german: { summary: 'The German keyboard shortcuts', value: KEYBOARD_DE },
      french: { summary: 'French keyboard shortcuts', value: { title: 'Raccourcis clavier' } },
      stale: { summary: 'A change based on an old read', value: { title: 'Konto anlegen', expectedUpdatedAt: STAMPS.stale } },
    },
    responses: {
      200: { created: { summary: 'A new translation', value: { translation: { slug: 'keyboard-shortcuts', language: 'de', ...KEYBOARD_DE, updatedAt: STAMPS.now, created: true } } } },
      400: {
        languageNotEnabled: {
          summary: 'French is not enabled on v2',
          sent: { path: { lang: 'fr' }, body: 'french' },
          value: error('language_not_enabled', 'Language fr is not enabled on version "v2" (languages: en, de)', { field: 'path/lang', language: 'fr', languages: ['en', 'de'] }),
        },
      },
      404: NO_NODE(),
      409: {
        staleWrite: { summary: 'Changed since it was read', sent: { path: { slug: 'create-account' }, body: 'stale' }, value: staleWrite('Translation de of "create-account"', nodeOf('create-account').translations.de.updatedAt) },
      },
    },
  },
  deleteTranslation: {
    parameters: { version: 'v2', slug: 'first-project', lang: 'de', 'If-Unmodified-Since': STAMPS.v2German },
    responses: {
      200: { deleted: { summary: 'English is left', value: { ok: true, remainingLanguages: ['en'] } } },
      400: {
        primaryLanguage: {
          summary: 'English is the primary language',
          sent: { path: { lang: 'en' } },
          value: error('primary_language_required', 'The en translation of "first-project" is in the primary language of version "v2" and cannot be deleted', { field: 'path/lang', slug: 'first-project', language: 'en' }),
        },
      },
      404: { noTranslation: NO_GERMAN_TRANSLATION },
    },
  },
  reorderNodes: {
    parameters: { version: 'v2' },
    requests: {
      moveShortcuts: { summary: 'Move keyboard-shortcuts into Getting started, last', value: { items: [{ slug: 'keyboard-shortcuts', parentSlug: 'getting-started', sortOrder: 30 }] } },
      cycle: { summary: 'A section under its own topic', value: { items: [{ slug: 'getting-started', parentSlug: 'create-account', sortOrder: 10 }] } },
    },
    responses: {
      200: {
        moved: {
          summary: "Every node's place, in document order",
          value: {
            version: 'v2',
            items: [
              { slug: 'getting-started', parentSlug: null, sortOrder: 10 },
              { slug: 'create-account', parentSlug: 'getting-started', sortOrder: 10 },
              { slug: 'first-project', parentSlug: 'getting-started', sortOrder: 20 },
              { slug: 'keyboard-shortcuts', parentSlug: 'getting-started', sortOrder: 30 },
              { slug: 'tasks-and-projects', parentSlug: null, sortOrder: 20 },
              { slug: 'create-tasks', parentSlug: 'tasks-and-projects', sortOrder: 10 },
            ],
          },
        },
      },
      400: {
        cycle: {
          summary: 'A node cannot move into its own subtree',
          sent: { body: 'cycle' },
          value: error('cycle', 'Moving "getting-started" under "create-account" would place it inside its own subtree', { field: 'body/items/0/parentSlug', slug: 'getting-started', parentSlug: 'create-account' }),
        },
      },
    },
  },

  // ---- Identity and PDF
  whoami: {
    responses: {
      200: {
        writer: {
          summary: "The documentation team's key",
          value: { kind: 'api_key', keyName: KEYS.writer.name, keyPrefix: KEYS.writer.prefix, createdAt: KEYS.writer.createdAt, lastUsedAt: STAMPS.now, scopes: ['help:read', 'help:write'], canWritePublished: false, publishViaPr: false },
        },
      },
      401: UNAUTHORIZED,
    },
  },
  // ---- Replication
  getServedRevision: {
    parameters: { after: 'a3f1c9e07b2d4e6f8a1c3e5f7b9d0f2a4c6e8b1d', wait: '25' },
    responses: {
      200: {
        now: { summary: 'The revision served now (without `after`: at once)', value: { revision: 'a3f1c9e07b2d4e6f8a1c3e5f7b9d0f2a4c6e8b1d', changed: true } },
      },
      400: {
        badAfter: {
          summary: '`after` that is not a commit id',
          sent: { query: { after: 'main' } },
          value: error('validation_failed', 'query/after must be a commit id: 40 hexadecimal digits in lower case', { field: 'query/after', errors: [{ field: 'query/after', message: 'must be a commit id: 40 hexadecimal digits in lower case' }] }),
        },
      },
      401: UNAUTHORIZED,
    },
  },
  getPdfBundle: {
    parameters: { version: 'latest', lang: 'de', topics: 'getting-started', limit: '20' },
    responses: {
      200: { section: { summary: 'A section with its topics, in German', sent: { query: { lang: 'de', topics: 'getting-started' } }, value: pdfBundle() } },
      400: {
        unknownTopic: {
          summary: 'A topic the version does not have',
          sent: { query: { topics: 'install' } },
          value: error('invalid_selection', 'Unknown topic or section: install', { field: 'query/topics', unknown: ['install'] }),
        },
      },
      404: NO_VERSION(),
    },
  },
  getFont: {
    parameters: { file: 'noto-sans-400.ttf' },
    responses: { 404: { unknown: { summary: 'A font no bundle names', sent: { path: { file: 'comic-sans.ttf' } }, value: error('not_found', 'No font "comic-sans.ttf"', { resource: 'route' }) } } },
  },
  getPdfRetired: {
    parameters: { version: 'v2' },
    responses: { 410: { gone: { summary: 'Retired', value: error('gone', 'Server-side PDF rendering is retired; fetch the data bundle and render it in the browser', { use: '/help/v1/versions/v2/pdf-bundle' }) } } },
  },
  postPdfRetired: {
    parameters: { version: 'v2' },
    responses: { 410: { gone: { summary: 'Retired', value: error('gone', 'Server-side PDF rendering is retired; fetch the data bundle and render it in the browser', { use: '/help/v1/versions/v2/pdf-bundle' }) } } },
  },

  // ---- Meta
  getApiIndex: {
    responses: {
      200: { index: { summary: 'Where everything is', value: { name: 'Help Content API', apiVersion: '1.0.0', links: { docs: '/help/v1/docs', openapi: '/help/v1/openapi.json', healthz: '/healthz', metrics: '/metrics' } } } },
      401: UNAUTHORIZED,
    },
  },
  getApiReference: notJson(),
  getOpenApi: notJson(),
  ...WEBHOOK_EXAMPLES,
  ...FEEDBACK_EXAMPLES,
  ...HISTORY_EXAMPLES,
};
