import { documentOrder } from '../domain/tree.ts';
import type { VersionState } from '../domain/types.ts';
import { escapeHtml } from './html.ts';
import { Links } from './site.ts';

/** A sitemap holds at most 50,000 addresses (sitemaps.org); a larger site lists the newest versions' pages first. */
export const SITEMAP_MAX = 50_000;

/**
 * sitemap.xml: each listed version's start page in its languages, and every page of the listed
 * versions in every language it is translated into, under
 * the version's own slug (not `latest`), with the date of its last change and its alternates.
 */
export function sitemap(origin: string, base: string, versions: readonly VersionState[]): string {
  const urls: string[] = [];
  for (const state of versions) {
    const links = new Links(base, state.slug, state.meta.languages[0]);
    // The version's start page, in each of its languages.
    const starts = state.meta.languages.map((l) => `    <xhtml:link rel="alternate" hreflang="${l}" href="${escapeHtml(origin + links.version(l))}"/>`).join('\n');
    for (const language of state.meta.languages) {
      if (urls.length === SITEMAP_MAX) break;
      urls.push(`  <url>\n    <loc>${escapeHtml(origin + links.version(language))}</loc>\n${starts}\n  </url>`);
    }
    for (const slug of documentOrder(state)) {
      const translations = state.translations.get(slug);
      if (!translations) continue;
      const languages = state.meta.languages.filter((l) => translations.has(l));
      const alternates = languages.map((l) => `    <xhtml:link rel="alternate" hreflang="${l}" href="${escapeHtml(origin + links.node(slug, l))}"/>`).join('\n');
      for (const language of languages) {
        if (urls.length === SITEMAP_MAX) break;
        const lastmod = translations.get(language)!.updatedAt.slice(0, 10);
        urls.push(`  <url>\n    <loc>${escapeHtml(origin + links.node(slug, language))}</loc>\n    <lastmod>${lastmod}</lastmod>\n${alternates}\n  </url>`);
      }
    }
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
${urls.join('\n')}
</urlset>
`;
}

/**
 * robots.txt: the portal may be crawled (not its search results, nor the API and sign-in), where its
 * sitemap is, and (a comment: robots.txt has no field for it) where its llms.txt is.
 */
export function robots(origin: string, base: string): string {
  return `User-agent: *
Allow: ${base}/
Disallow: ${base}/*/search
Disallow: /help/
Disallow: /oauth/

Sitemap: ${origin}${base}/sitemap.xml
# llms.txt: ${origin}${base}/llms.txt
`;
}
