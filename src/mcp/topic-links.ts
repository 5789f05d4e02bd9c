import type { Deps } from '../deps.ts';
import { canonicalLanguage, isNodeSlug, isVersionSlug, NODE_SLUG_MAX, VERSION_SLUG_MAX } from '../domain/names.ts';
import { invalid } from '../errors.ts';
import { linksFor, listedVersions } from '../portal/site.ts';
import { movedIn } from '../queries/redirects.ts';
import type { Reader } from '../queries/reader.ts';
import { versionByRef } from '../queries/versions.ts';
import type { JsonSchema } from './schemas.ts';

/**
 * How the search and fetch tools name a topic and where a person reads it. An id is the node's
 * place, `{version}/{language}/{slug}`: none of the three can hold a `/`, so it splits one way only,
 * and it is looked up in the loaded versions alone (never a path on disk). Search answers ids with
 * the version's own slug, so an id found in `latest` still names the same page once another
 * version is marked latest.
 */

/** The longest language code the registry takes (LanguageCode). */
const LANGUAGE_MAX = 35;

/** The longest id: the longest slugs and language code, and the two slashes. */
export const TOPIC_ID_MAX = VERSION_SLUG_MAX + LANGUAGE_MAX + NODE_SLUG_MAX + 2;

export interface TopicId {
  /** A version slug, or `latest`. */
  version: string;
  /** In canonical case. */
  language: string;
  slug: string;
}

export const formatTopicId = (version: string, language: string, slug: string) => `${version}/${language}/${slug}`;

/** A value as an error message quotes it: a caller's mistake is shown, not a megabyte of it. */
const quoted = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);

const SHAPE = 'a search hit\'s id, "{version}/{language}/{slug}" such as "v2/en/getting-started"';

/** An id as fetch takes it, or 400 validation_failed naming `field` and the part at fault. */
export function parseTopicId(value: unknown, field: string): TopicId {
  if (typeof value !== 'string') throw invalid(field, `must be a string: ${SHAPE}`);
  if (value.length > TOPIC_ID_MAX) throw invalid(field, `must be at most ${TOPIC_ID_MAX} characters: ${SHAPE}`);
  const parts = value.split('/');
  if (parts.length !== 3) throw invalid(field, `must be ${SHAPE}; ${quoted(value)} is not`);
  const [version, lang, slug] = parts;
  if (version !== 'latest' && !isVersionSlug(version)) {
    throw invalid(field, `names the version ${quoted(version)}, which is no version slug (lowercase letters and digits, separated by single "-", "_" or ".") nor "latest"`);
  }
  const language = canonicalLanguage(lang);
  if (language === null) throw invalid(field, `names the language ${quoted(lang)}, which is no language code (BCP 47, e.g. en, pt-BR)`);
  if (!isNodeSlug(slug)) throw invalid(field, `names the topic ${quoted(slug)}, which is no node slug (lowercase letters and digits, separated by single "-" or "_")`);
  return { version, language, slug };
}

/** Where a node of a version is read: `(slug, language, anchor?) => url`. */
export type PageUrl = (slug: string, language: string, anchor?: string | null) => string;

/**
 * The portal's absolute page addresses for a version, under its own slug as the sitemap has them,
 * or null when the portal does not show it: it reads as the public reader and shows the versions
 * HELP_PORTAL_VERSIONS lists, and while versions still load it answers no page.
 */
export function portalPages({ catalog, config }: Pick<Deps, 'catalog' | 'config'>, version: string, origin: string): PageUrl | null {
  if (!catalog.complete) return null;
  const state = listedVersions(catalog, config.portal).find((s) => s.slug === version);
  if (state === undefined) return null;
  const links = linksFor(config.portal, state, state.slug);
  return (slug, language, anchor) => `${origin}${links.node(slug, language)}${anchor ? `#${encodeURIComponent(anchor)}` : ''}`;
}

/** The redirect a read tool followed, as the API's 301 body names it (less `location`: the answer is the node's). */
export interface Followed {
  from: string;
  to: string;
}

/** A tool answer's `redirect` field: present only when the slug asked for was a renamed node's old one. */
export const FOLLOWED_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['from', 'to'],
  properties: { from: { $ref: 'NodeSlug' }, to: { $ref: 'NodeSlug' } },
};

/**
 * The slug a read tool reads for the one asked for, in the version a ref names: a renamed node's old
 * slug is followed to the node in one hop, as the API's reads answer 301 (a live node wins). The
 * version is looked up with the reader's visibility, so a hidden version stays not_found.
 */
export function followSlug(catalog: Deps['catalog'], reader: Reader, versionRef: string, slug: string): { version: string; slug: string; redirect: Followed | null } {
  const state = versionByRef(catalog, reader, versionRef);
  const moved = movedIn(state, slug);
  return { version: state.slug, slug: moved?.to ?? slug, redirect: moved === null ? null : { from: moved.from, to: moved.to } };
}

/** An answer with the redirect followed, the field left out when there was none. */
export const withFollowed = <T extends object>(answer: T, redirect: Followed | null): T & { redirect?: Followed } => (redirect === null ? answer : { ...answer, redirect });
