import type { Deps } from '../deps.ts';
import { textChars } from '../domain/translations.ts';
import type { VersionState } from '../domain/types.ts';
import { readerOf, requireCredential, requireScope } from '../http/actor.ts';
import { language } from '../http/languages.ts';
import { presentTopic, presentTranslation, presentTree } from '../presenters/content.ts';
import { exportObject } from '../presenters/export.ts';
import { presentNodeList } from '../presenters/nodes.ts';
import { presentVersion } from '../presenters/versions.ts';
import { mayListBodies, readNode, readTranslation } from '../queries/content.ts';
import { listVersions, pageVersions, versionByRef } from '../queries/versions.ts';
import { translationStatus, withDiffs } from '../queries/translation-status.ts';
import { describeCredential } from '../routes/identity.ts';
import { pdfBundle } from '../routes/pdf.ts';
import type { AnswerBudget } from './budget.ts';
import { searchTools } from './search-tools.ts';
import { FOLLOWED_OUTPUT, followSlug, withFollowed } from './topic-links.ts';
import { feedbackTools } from './feedback-tools.ts';
import { historyTools } from './history-tools.ts';
import type { ToolSpec } from './tool.ts';

/** Characters of diff text in one get_translation_status answer: a model reads all of it. */
const TOOL_DIFF_BUDGET = 50_000;

const EXPORT_INSTEAD = 'GET the API\'s /export, which streams it (compressed for clients that accept gzip)';

/** The read tools: the same queries and presenters as the API's reads, with the caller's visibility. */
export function readTools(deps: Deps): ToolSpec[] {
  const { catalog } = deps;
  return [
    {
      name: 'list_versions',
      title: 'List versions',
      description: 'Lists the versions, newest first: slug, label, status, languages, isLatest. Use it to find the version to read or write; with limit, pass the answer\'s nextCursor as cursor for the next page.',
      write: false,
      query: 'VersionsQuery',
      output: {
        type: 'object',
        required: ['versions', 'nextCursor'],
        properties: { versions: { $ref: 'VersionList' }, nextCursor: { type: ['string', 'null'], description: 'Where the next page starts; null on the last page.' } },
      },
      run: ({ actor, args }) => {
        const all = listVersions(catalog, readerOf(actor), args.includeWorkingCopies === 'true');
        const page = pageVersions(all, args, 'arguments/cursor');
        return { versions: page.versions.map(presentVersion), nextCursor: page.next };
      },
    },
    {
      name: 'get_tree',
      title: 'Navigation tree',
      description: 'The navigation tree of a version: nested sections and topics with titles in one language (default en; each falls back to English, then the primary language). Use it to browse or to find a slug.',
      write: false,
      params: { version: 'VersionRef' },
      query: 'LanguageQuery',
      output: 'Tree',
      run: ({ actor, args }) => presentTree(versionByRef(catalog, readerOf(actor), args.version), language(args.language ?? 'en', 'arguments/language')),
    },
    {
      name: 'get_topic',
      title: 'Read a topic',
      description: 'Reads a topic or section as readers see it: Markdown body, breadcrumbs and neighbours in one language, with fallback (the answer\'s language and fallback say what was served). A renamed node\'s old slug reads the node, with redirect {from, to}.',
      write: false,
      params: { version: 'VersionRef', slug: 'NodeSlug' },
      query: 'LanguageQuery',
      output: { type: 'object', allOf: [{ $ref: 'Topic' }], properties: { redirect: FOLLOWED_OUTPUT } },
      instead: 'GET the API\'s /versions/{version}/topics/{slug}',
      run: ({ actor, args }) => {
        const reader = readerOf(actor);
        const lang = language(args.language ?? 'en', 'arguments/language');
        const { version, slug, redirect } = followSlug(catalog, reader, args.version, args.slug);
        return withFollowed(presentTopic(readNode(catalog, reader, version, slug), slug, lang), redirect);
      },
    },
    {
      name: 'list_nodes',
      title: 'List nodes',
      description: 'Every node of a version in document order: per-language titles, summaries, updatedAt stamps and body lengths; include "bodies" adds the bodies (with a credential). Use it before editing many nodes.',
      write: false,
      params: { version: 'VersionRef' },
      query: 'NodesQuery',
      output: 'NodeList',
      run: ({ actor, args, answer }) => {
        const reader = readerOf(actor);
        const state = versionByRef(catalog, reader, args.version);
        const withBodies = args.include === 'bodies' && mayListBodies(reader);
        if (withBodies) withinAnswer(state, answer, 'list_nodes with include "bodies"', 'leave include out and read the bodies with get_translation, or GET the API\'s /nodes?include=bodies');
        return presentNodeList(state, withBodies);
      },
    },
    {
      name: 'get_translation',
      title: 'Read one translation',
      description: 'One translation exactly as stored, without fallback: title, summary, bodyMd, updatedAt (the expectedUpdatedAt of an edit) and the languages the node has. Use it before put_translation. An old slug reads the renamed node, with redirect.',
      write: false,
      params: { version: 'VersionRef', slug: 'NodeSlug', language: 'LanguageCode' },
      output: { type: 'object', allOf: [{ $ref: 'TranslationRead' }], properties: { redirect: FOLLOWED_OUTPUT } },
      instead: 'GET the API\'s /versions/{version}/topics/{slug}/translations/{language}',
      run: ({ actor, args }) => {
        const reader = readerOf(actor);
        const lang = language(args.language, 'arguments/language');
        const { version, slug, redirect } = followSlug(catalog, reader, args.version, args.slug);
        const { state, translation } = readTranslation(catalog, reader, version, slug, lang);
        return withFollowed(presentTranslation(state, slug, lang, translation), redirect);
      },
    },
    {
      name: 'get_translation_status',
      title: 'Missing and outdated translations',
      description: 'Per language of a version: the nodes without a translation, and the translations whose primary-language text changed since they were last written, each with that text\'s unified diff since (all diffs within 50,000 characters; past that, diffOmitted "budget": ask for one language). Writing a translation brings it in line.',
      write: false,
      params: { version: 'VersionRef' },
      query: 'TranslationStatusQuery',
      output: 'TranslationStatusReport',
      run: async ({ actor, args }) => {
        const state = versionByRef(catalog, readerOf(requireScope(actor, 'help:read')), args.version);
        const lang = args.lang === undefined ? undefined : language(args.lang, 'arguments/language');
        return withDiffs(state, translationStatus(state, lang), deps.repo, TOOL_DIFF_BUDGET);
      },
    },
    ...searchTools(deps),
    {
      name: 'export_version',
      title: 'Export a version',
      description: 'A whole version as an export document { version, nodes }, every translation and body included: to back it up or copy it, as import_version takes it back.',
      write: false,
      params: { version: 'VersionRef' },
      output: 'ExportDocument',
      instead: EXPORT_INSTEAD,
      run: ({ actor, args, answer }) => {
        const state = versionByRef(catalog, readerOf(actor), args.version);
        withinAnswer(state, answer, 'export_version', EXPORT_INSTEAD);
        return exportObject(state);
      },
    },
    {
      name: 'get_pdf_bundle',
      title: 'PDF bundle',
      description: 'To render a PDF of a version or of some topics: entries in document order with their bodies, a template and font URLs. topics: comma-separated slugs (a section brings its descendants).',
      write: false,
      params: { version: 'VersionRef' },
      query: 'PdfBundleQuery',
      output: 'PdfBundle',
      instead: 'choose fewer topics (topics, limit), or GET the API\'s /versions/{version}/pdf-bundle',
      run: ({ actor, args, origin }) => pdfBundle(deps, readerOf(actor), args.version, args, origin, 'arguments'),
    },
    {
      name: 'whoami',
      title: 'Who am I',
      description: 'Describes this connection\'s credential: key or OAuth token, scopes, whether it may write published versions, whether publishing goes through pull requests.',
      write: false,
      output: { type: 'object', allOf: [{ $ref: 'Whoami' }] },
      run: ({ actor }) => describeCredential(deps, requireCredential(actor)),
    },
    ...feedbackTools(deps),
    ...historyTools(deps),
  ];
}

/**
 * Refuses a tool answer that would carry more of the version's text than the request may still be
 * answered with (413 limit_exceeded, or 429 too_many_requests for a caller's minute), before the
 * answer is built: every body of a 10,000-node version (246 M characters) held every other request for 12 s.
 */
function withinAnswer(state: VersionState, answer: AnswerBudget, what: string, instead: string): void {
  let chars = 0;
  for (const byLanguage of state.translations.values()) for (const t of byLanguage.values()) chars += textChars(t);
  answer.expect(chars, `${what} of version "${state.slug}"`, instead);
}
