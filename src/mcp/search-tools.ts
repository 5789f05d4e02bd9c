import type { Deps } from '../deps.ts';
import { textChars } from '../domain/translations.ts';
import { AppError, invalid } from '../errors.ts';
import { readerOf } from '../http/actor.ts';
import { presentTopic } from '../presenters/content.ts';
import { readTranslation } from '../queries/content.ts';
import type { Reader } from '../queries/reader.ts';
import { versionByRef } from '../queries/versions.ts';
import { DEFAULT_LIMIT, searchVersion, searchVersionRanked } from '../routes/search.ts';
import { check } from '../schemas/registry.ts';
import { FETCH_INPUT, FETCH_OUTPUT, SEARCH_INPUT, SEARCH_OUTPUT } from './schemas.ts';
import { checkParam, type Args, type ToolSpec } from './tool.ts';
import { FOLLOWED_OUTPUT, followSlug, formatTopicId, parseTopicId, portalPages, withFollowed } from './topic-links.ts';

const FETCH_INSTEAD = "GET the API's /versions/{version}/topics/{slug}/translations/{language}";

/** A number of search's paging as SearchQuery checks it (digits); a client may send it as a number or as digits. */
function digits(value: unknown, field: string): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  throw invalid(field, 'must be a whole number');
}

/**
 * search's arguments: SearchQuery's checks with the tool's defaults. A tool ranks unless asked not
 * to (the API keeps document order as its default, for the clients it had), and searches the latest
 * version when none is named.
 */
function searchArguments({ version, order, limit, offset, language, ...query }: Args): Args {
  const paging = { ...(limit !== undefined ? { limit: digits(limit, 'arguments/limit') } : {}), ...(offset !== undefined ? { offset: digits(offset, 'arguments/offset') } : {}) };
  // The route calls the language `lang`; errors name it as the tool does (errorResult).
  const checked = check<Args>('SearchQuery', { ...query, ...(language !== undefined ? { lang: language } : {}), ...(order !== undefined ? { order } : {}), ...paging }, 'arguments');
  if (checked.order === 'document' && (limit !== undefined || offset !== undefined)) {
    throw invalid(`arguments/${limit !== undefined ? 'limit' : 'offset'}`, 'applies to order "relevance" only (order "document" answers its up to 50 hits at once)');
  }
  return {
    ...checked,
    version: version === undefined ? 'latest' : checkParam('VersionRef', version, 'arguments/version'),
    order: checked.order ?? 'relevance',
    limit: checked.limit === undefined ? DEFAULT_LIMIT : Number(checked.limit),
    offset: checked.offset === undefined ? 0 : Number(checked.offset),
  };
}

/** A search in the order asked for, each hit with the id fetch takes and its page in the portal. */
async function search(deps: Deps, reader: Reader, args: Args, origin: string) {
  // `latest` is resolved once, here: the ids must name the version that was searched.
  let version: string;
  try {
    version = versionByRef(deps.catalog, reader, args.version).slug;
  } catch (err) {
    // Without a version named, the caller may not know it searched the latest one.
    if (err instanceof AppError && err.code === 'not_found' && args.version === 'latest') {
      throw new AppError('not_found', `${err.message} (or none this caller may see): name the version to search in arguments/version; list_versions lists them`, { ...err.data, field: 'arguments/version' });
    }
    throw err;
  }
  const answer =
    args.order === 'document'
      ? await searchVersion(deps, reader, version, args.q, args.lang, 'arguments/lang')
      : await searchVersionRanked(deps, reader, version, args.q, args.lang, 'arguments/lang', { limit: args.limit, offset: args.offset });
  const page = portalPages(deps, answer.version, origin);
  const hits = answer.hits.map((hit: { slug: string; heading?: { anchor: string } | null }) => ({
    id: formatTopicId(answer.version, answer.language, hit.slug),
    url: page?.(hit.slug, answer.language, hit.heading?.anchor) ?? null,
    ...hit,
  }));
  return { ...answer, hits };
}

/** The title as one line of a heading: a title may hold line breaks, which would end it. */
const headingOf = (title: string) => `# ${title.replace(/\s*[\r\n]+\s*/g, ' ')}`;

/**
 * The search and fetch tools: what MCP clients that research a site expect (a search whose hits
 * carry ids, a fetch of the whole document by id), over the same queries as the API's reads.
 */
export function searchTools(deps: Deps): ToolSpec[] {
  const { catalog } = deps;
  return [
    {
      name: 'search',
      title: 'Search',
      description:
        'Finds topics by their words, best first (typos and word forms forgiven); use it first to answer a question. Each hit has an id for fetch, the url of its page, title, summary, snippet, heading and breadcrumbs; total counts every match. ' +
        "Right after a start it may wait up to 2 s for a version's index (version_loading beyond).",
      write: false,
      input: { properties: SEARCH_INPUT, required: ['q'], read: searchArguments },
      output: SEARCH_OUTPUT,
      run: ({ actor, args, origin }) => search(deps, readerOf(actor), args, origin),
    },
    {
      name: 'fetch',
      title: 'Fetch a topic',
      description:
        'Reads the whole topic of a search hit\'s id ("{version}/{language}/{slug}"): title, text (Markdown), url and metadata; the same id with another of metadata.availableLanguages reads that translation. An id with a renamed node\'s old slug reads the node, with redirect.',
      write: false,
      input: { properties: FETCH_INPUT, required: ['id'], read: ({ id }) => ({ id: parseTopicId(id, 'arguments/id') }) },
      output: { ...FETCH_OUTPUT, properties: { ...(FETCH_OUTPUT.properties as object), redirect: FOLLOWED_OUTPUT } },
      instead: FETCH_INSTEAD,
      run: ({ actor, args, origin, answer }) => {
        const reader = readerOf(actor);
        const { version, language } = args.id;
        const id = formatTopicId(version, language, args.id.slug);
        let found;
        let followed;
        try {
          followed = followSlug(catalog, reader, version, args.id.slug);
          found = readTranslation(catalog, reader, followed.version, followed.slug, language);
        } catch (err) {
          // Each part of the id is the argument at fault; the reads name the version, node or translation missing.
          if (err instanceof AppError && err.code === 'not_found') throw new AppError('not_found', `arguments/id ${JSON.stringify(id)} names no topic: ${err.message}`, { ...err.data, field: 'arguments/id' });
          throw err;
        }
        const { state, translation } = found;
        const { slug, redirect } = followed;
        // Refused before the Markdown is put together, which would copy the body once more.
        answer.expect(textChars(translation) + translation.title.length + translation.summary.length, `fetch of "${id}"`, FETCH_INSTEAD);
        const topic = presentTopic(state, slug, language);
        const page = portalPages(deps, state.slug, origin);
        return withFollowed({
          id: formatTopicId(state.slug, language, slug),
          title: translation.title,
          text: `${headingOf(translation.title)}\n\n${translation.summary ? `${translation.summary}\n\n` : ''}${translation.bodyMd}`,
          url: page?.(slug, language) ?? null,
          metadata: {
            version: state.slug,
            versionLabel: state.meta.label,
            language,
            slug,
            kind: topic.kind,
            summary: translation.summary,
            updatedAt: translation.updatedAt,
            availableLanguages: topic.availableLanguages,
            breadcrumbs: topic.breadcrumbs,
          },
        }, redirect);
      },
    },
  ];
}
