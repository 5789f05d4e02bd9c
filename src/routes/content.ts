import { readerOf } from '../http/actor.ts';
import { endpoint } from '../http/api.ts';
import { language } from '../http/languages.ts';
import { mayListBodies, readNode, readTranslation } from '../queries/content.ts';
import { readableVersion } from '../queries/versions.ts';
import { presentNodeList } from '../presenters/nodes.ts';
import { presentLinks } from '../presenters/links.ts';
import { versionLinks } from '../queries/links.ts';
import { presentTopic, presentTranslation, presentTree } from '../presenters/content.ts';
import type { Deps } from '../deps.ts';
import type { Translation } from '../domain/types.ts';
import { encodedList, encodedString, encodedTree, longString } from '../http/encoded-json.ts';
import { movedNode } from '../queries/redirects.ts';
import { movedAnswer } from './moved.ts';
import { topicAtRevision, translationAtRevision } from './revision-reads.ts';

/** Bodies are sent from their memoized JSON text when the answer is built again (encoded-json.ts). */
const encodedBody = (t: Translation) => encodedString(t, t.bodyMd);

/** A read of a renamed node's old slug. */
const MOVED = { description: 'Moved: the slug is an old slug of a renamed node; `Location` is the same URL under its slug now', schema: 'Moved' };

/** The read endpoints. They answer from the in-memory index only. */
export function contentRoutes({ catalog, config, history, revisions }: Deps) {
  const past = { catalog, history, revisions };
  return [
    endpoint<unknown, { language?: string }>({
      method: 'get',
      path: '/versions/:version/tree',
      operationId: 'getTree',
      cache: true,
      summary: 'The navigation tree of a version, with titles in one language',
      tag: 'Reading content',
      access: 'public',
      query: 'LanguageQuery',
      errors: ['not_found'],
      responses: { 200: { description: 'Nested sections and topics', schema: 'Tree' } },
      handle: ({ actor, params, query }) => {
        const state = readableVersion(catalog, readerOf(actor), params.version);
        // Ten thousand nodes: presented and encoded a slice at a time.
        return { body: presentTree(state, language(query.language ?? 'en', 'query/language'), encodedTree) };
      },
    }),
    endpoint<unknown, { language?: string; revision?: string }>({
      method: 'get',
      path: '/versions/:version/topics/:slug',
      operationId: 'getTopic',
      cache: true,
      summary: 'A topic (or section) with its Markdown body, breadcrumbs and neighbours',
      description: 'Falls back to English, then to the primary language, when the requested language is missing; `language` and `fallback` say what was served.',
      tag: 'Reading content',
      access: 'public',
      query: 'TopicQuery',
      errors: ['not_found', 'unknown_revision', 'not_in_revision'],
      responses: { 200: { description: 'The topic', schema: 'Topic' }, 301: MOVED },
      handle: ({ ctx, actor, params, query }) => {
        if (query.revision !== undefined) return topicAtRevision(past, actor, params.version, params.slug, language(query.language ?? 'en', 'query/language'), query.revision);
        const moved = movedNode(catalog, readerOf(actor), params.version, params.slug);
        if (moved !== null) return movedAnswer(ctx, moved);
        const state = readNode(catalog, readerOf(actor), params.version, params.slug);
        return { body: presentTopic(state, params.slug, language(query.language ?? 'en', 'query/language'), encodedBody) };
      },
    }),
    endpoint<unknown, { include?: string }>({
      method: 'get',
      path: '/versions/:version/nodes',
      operationId: 'listNodes',
      cache: true,
      summary: 'Every node of a version in document order, with per-language titles and stamps',
      tag: 'Reading content',
      access: 'public',
      query: 'NodesQuery',
      errors: ['not_found'],
      responses: { 200: { description: 'The nodes', schema: 'NodeList' } },
      handle: ({ actor, params, query }) => {
        const reader = readerOf(actor);
        const state = readableVersion(catalog, reader, params.version);
        // Ten thousand nodes, and with bodies hundreds of MB: presented and encoded a slice at a time, the bodies not kept.
        return { body: presentNodeList(state, query.include === 'bodies' && mayListBodies(reader), (t) => longString(t.bodyMd), encodedList) };
      },
    }),
    endpoint({
      method: 'get',
      path: '/versions/:version/links',
      operationId: 'getLinks',
      cache: true,
      summary: 'Every broken internal link of a version, with its file and line',
      description:
        'Links from one page of the version to another (`other-topic`, `../other-topic`, `other-topic.md`, `../de/other-topic.md`, portal URLs), with or without `#anchor` and `?lang=`, are checked against the version as it is held in memory: a node that does not exist, a heading anchor the page does not have, or a language the version does not have makes a link broken. Links to other sites are not followed. Checked once per state of the version.',
      tag: 'Reading content',
      access: 'public',
      errors: ['not_found'],
      responses: { 200: { description: 'The broken links and how many internal links were checked', schema: 'LinksReport' } },
      handle: async ({ actor, params }) => {
        const state = readableVersion(catalog, readerOf(actor), params.version);
        return { body: presentLinks(state, await versionLinks(state, config.portal.path)) };
      },
    }),
    endpoint({
      method: 'get',
      path: '/versions/:version/topics/:slug/translations/:lang',
      operationId: 'getTranslation',
      cache: true,
      summary: 'One translation of a node, without fallback',
      tag: 'Reading content',
      access: 'public',
      query: 'RevisionQuery',
      errors: ['not_found', 'unknown_revision', 'not_in_revision'],
      responses: { 200: { description: 'The translation', schema: 'TranslationRead' }, 301: MOVED },
      handle: ({ ctx, actor, params, query }) => {
        const lang = language(params.lang, 'path/lang');
        if (query.revision !== undefined) return translationAtRevision(past, actor, params.version, params.slug, lang, query.revision);
        const moved = movedNode(catalog, readerOf(actor), params.version, params.slug);
        if (moved !== null) return movedAnswer(ctx, moved);
        const { state, translation } = readTranslation(catalog, readerOf(actor), params.version, params.slug, lang);
        return { body: presentTranslation(state, params.slug, lang, translation, encodedBody) };
      },
    }),
  ];
}
