import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { escapeHtml } from '../src/portal/html.ts';
import { fragment } from '../src/portal/open-link.ts';
import { markRanges, resultOffset } from '../src/portal/search-page.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

// The portal's search page over the sample content: ranked by relevance, ten results a page with
// "More results", the index's highlights marked, links to the passage's section, "Did you mean".
// test/portal-search-browser.test.ts reads the same page in Chromium.

const SAMPLE = fileURLToPath(new URL('../content-sample', import.meta.url));

/** A result as the page shows it. */
interface Shown {
  href: string;
  title: string;
  /** The trail below the title: ancestors, and the section of the passage. */
  where: string;
  /** The snippet's markup (escaped text and `<mark>`). */
  snippet: string;
}

/** The results listed on a search page, in order. */
function resultsOf(html: string): Shown[] {
  const list = /<ol class="results" start="\d+">([\s\S]*?)<\/ol>/.exec(html);
  if (list === null) return [];
  return [...list[1].matchAll(/<li[^>]*><h2><a href="([^"]*)">([\s\S]*?)<\/a><\/h2>(?:<p class="where">([\s\S]*?)<\/p>)?(?:<p class="snippet">([\s\S]*?)<\/p>)?<\/li>/g)].map((m) => ({
    href: landing(m[1]),
    title: m[2],
    where: (m[3] ?? '').replace(/<[^>]+>/g, ''),
    snippet: m[4] ?? '',
  }));
}

/** Results open through `_open`, which counts the opening for the search report and redirects: the page a result's link lands on. */
function landing(href: string): string {
  const m = /^(.*)\/_open\?(.*)$/.exec(href.replace(/&amp;/g, '&'));
  if (m === null) return href;
  const p = new URLSearchParams(m[2]);
  return `${m[1]}/${p.get('to')}${p.has('lang') ? `?lang=${p.get('lang')}` : ''}${p.has('at') ? `#${fragment(p.get('at')!)}` : ''}`;
}

const statusOf = (html: string) => /<p class="result-count" role="status">([^<]*)<\/p>/.exec(html)?.[1] ?? '';
const moreOf = (html: string) => /<a class="more" rel="next" href="([^"]*)">More results<\/a>/.exec(html)?.[1].replace(/&amp;/g, '&') ?? null;

/** A snippet as the page must mark it: the index's ranges, every character escaped. */
function marked(snippet: string, highlights: Array<[number, number]>): string {
  let out = '';
  let from = 0;
  for (const [start, end] of highlights) {
    out += `${escapeHtml(snippet.slice(from, start))}<mark>${escapeHtml(snippet.slice(start, end))}</mark>`;
    from = end;
  }
  return out + escapeHtml(snippet.slice(from));
}

describe('The portal search page (ranked)', () => {
  let s: TestServer;
  let origin: string;
  const page = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${origin}${path}`, { headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  /** The same search through the API, by relevance. */
  const api = async (q: string, extra = '') => {
    const res = await fetch(`${s.url}/versions/v1/search?q=${encodeURIComponent(q)}&order=relevance${extra}`, { signal: AbortSignal.timeout(10_000) });
    assert.equal(res.status, 200);
    return (await res.json()) as { total: number; suggestion?: string; hits: Array<{ slug: string; title: string; snippet: string; highlights: Array<[number, number]>; heading: { text: string; anchor: string } | null }> };
  };

  before(async () => {
    s = await startTestServer({ sample: SAMPLE });
    origin = new URL(s.url).origin;
    // Another published version with the same words: a search of v1 must not list it.
    await createVersion(s, 'other', { status: 'published', languages: ['en'] });
    await createNode(s, 'other', { slug: 'slack-elsewhere', translations: { en: { title: 'Slack elsewhere', bodyMd: 'Slack Slack Slack tasks.\n' } } });
    await createNode(s, 'other', { slug: 'entities', translations: { en: { title: 'Entities', bodyMd: '## Cats &amp; dogs\n\nA yak is neither.\n' } } });
    await createNode(s, 'other', { slug: 'hostile', translations: { en: { title: 'Hostile <b>title</b>', bodyMd: '## Tags & <i>more</i>\n\nIn the zebra box, type &lt;script&gt; if 1 < 2 && "a" > \'b\' <img src=x onerror=alert(1)> too.\n' } } });
  });
  after(() => s?.close());

  test('"slack" lists the Slack integration topic first, the best match of the version in its language', async () => {
    const { status, html } = await page('/support/v1/search?q=slack');
    assert.equal(status, 200);
    assert.match(html, /<meta name="robots" content="noindex">/);
    const shown = resultsOf(html);
    assert.ok(shown.length > 0, html);
    assert.equal(shown[0].title, 'Slack integration');
    assert.match(shown[0].href, /^\/support\/v1\/slack-integration(#|$)/);
    assert.ok(shown.every((r) => r.href.startsWith('/support/v1/')), 'only this version');
    assert.ok(!html.includes('slack-elsewhere'), 'not another version');
    assert.match(statusOf(html), /^\d+ pages? match(es)? “slack”\.$/);
    const { total, hits } = await api('slack', '&limit=10');
    assert.deepEqual(shown.map((r) => r.href.replace(/[?#].*$/, '').split('/').pop()), hits.map((h) => h.slug), 'the order of the ranked search');
    assert.match(statusOf(html), new RegExp(`^${total} page`));
  });

  test('each snippet marks the ranges the index gives, escaped; the title links to the section the passage is in', async () => {
    for (const q of ['slack', 'slash commands', 'notifications channel']) {
      const { html } = await page(`/support/v1/search?q=${encodeURIComponent(q)}`);
      const shown = resultsOf(html);
      const { hits } = await api(q, '&limit=10');
      assert.equal(shown.length, hits.length, q);
      hits.forEach((hit, i) => {
        assert.equal(shown[i].snippet, marked(hit.snippet, hit.highlights), `${q}: the snippet of ${hit.slug}`);
        assert.equal(shown[i].href, `/support/v1/${hit.slug}${hit.heading ? `#${hit.heading.anchor}` : ''}`, `${q}: the link of ${hit.slug}`);
        if (hit.heading) assert.ok(shown[i].where.endsWith(`${escapeHtml(hit.title)} › ${escapeHtml(hit.heading.text)}`), `${q}: where ${shown[i].where}`);
      });
      assert.ok(shown.some((r) => r.snippet.includes('<mark>')), `${q}: something is marked`);
    }
    // The passage about slash commands is under its heading: the link goes there, and the trail says so.
    const shown = resultsOf((await page('/support/v1/search?q=slash+commands')).html);
    const slack = shown.find((r) => r.href.startsWith('/support/v1/slack-integration'));
    assert.ok(slack, 'the Slack topic is found');
    assert.equal(slack.href, '/support/v1/slack-integration#slash-commands');
    assert.equal(slack.where, 'Integrations › Slack integration › Slash commands');
  });

  test('ten results a page; "More results" goes on without repeating one, until every match is listed', async () => {
    const first = await page('/support/v1/search?q=tasks');
    const total = Number(/^(\d+) pages match/.exec(statusOf(first.html))?.[1]);
    assert.ok(total > 10, `enough matches to page through: ${statusOf(first.html)}`);
    assert.equal(resultsOf(first.html).length, 10);
    assert.match(statusOf(first.html), new RegExp(`^${total} pages match “tasks”\\. Showing 1–10\\.$`));
    assert.doesNotMatch(first.html, /rel="prev"/);
    const seen: string[] = [];
    let html = first.html;
    let path: string | null = '/support/v1/search?q=tasks';
    for (let n = 0; path !== null; n++) {
      assert.ok(n < 10, 'the pages end');
      if (n > 0) html = (await page(path)).html;
      const shown = resultsOf(html);
      assert.ok(shown.length > 0 && shown.length <= 10, `${path}: ${shown.length}`);
      seen.push(...shown.map((r) => r.href.replace(/[?#].*$/, '')));
      path = moreOf(html);
      if (path !== null) assert.equal(path, `/support/v1/search?q=tasks&offset=${seen.length}`);
      if (n > 0) assert.match(html, /<a class="previous" rel="prev" href="\/support\/v1\/search\?q=tasks(&amp;offset=\d+)?">Previous results<\/a>/);
    }
    assert.equal(seen.length, total, 'every match, once');
    assert.equal(new Set(seen).size, seen.length, `no result twice: ${seen}`);
    const second = await page('/support/v1/search?q=tasks&offset=10');
    const last = Math.min(20, total);
    assert.match(statusOf(second.html), new RegExp(`Showing 11–${last}\\.$`));
    assert.match(second.html, /<ol class="results" start="11">/);
    assert.match(second.html, new RegExp(`<title>tasks – Search, results 11–${last} · `));
  });

  test('a page past the last result says so and links back; a bad offset is ignored, a huge one clamped, never an error', async () => {
    const past = await page('/support/v1/search?q=slack&offset=500');
    assert.equal(past.status, 200);
    assert.match(statusOf(past.html), /^\d+ pages? match(es)? “slack”\. There are no more results\.$/);
    assert.match(past.html, /rel="prev" href="\/support\/v1\/search\?q=slack">Previous results<\/a>/);
    const plain = resultsOf((await page('/support/v1/search?q=slack')).html);
    for (const offset of ['abc', '-5', '1.5', '1e3', '', '0x10', '%00']) {
      const res = await page(`/support/v1/search?q=slack&offset=${offset}`);
      assert.equal(res.status, 200, offset);
      assert.deepEqual(resultsOf(res.html), plain, `offset=${offset} means the first results`);
    }
    const huge = await page('/support/v1/search?q=slack&offset=99999999999999999999999');
    assert.equal(huge.status, 200);
    assert.match(statusOf(huge.html), /There are no more results/);
  });

  test('nothing found: "No pages match", and "Did you mean" links the search the version suggests', async () => {
    const none = await page('/support/v1/search?q=qqqqzzzz');
    assert.match(statusOf(none.html), /^No pages match “qqqqzzzz”\.$/);
    assert.doesNotMatch(none.html, /<ol class="results"|Did you mean|More results/);
    const q = 'slekk';
    const { total, suggestion } = await api(q);
    assert.equal(total, 0, 'a query nothing matches');
    assert.ok(suggestion, 'for which the version has a suggestion');
    const { html } = await page(`/support/v1/search?q=${encodeURIComponent(q)}`);
    assert.match(statusOf(html), new RegExp(`^No pages match “${q}”\\.$`));
    assert.ok(html.includes(`<p class="suggestion">Did you mean <a href="/support/v1/search?q=${new URLSearchParams({ q: suggestion }).toString().slice(2)}">${escapeHtml(suggestion)}</a>?</p>`), html);
  });

  test('queries and content are hostile input: escaped in the status, the title, the box, the trail and the snippet', async () => {
    const evil = '"><script>alert(1)</script>';
    const { html } = await page(`/support/v1/search?q=${encodeURIComponent(evil)}`);
    assert.ok(!html.includes('<script>alert'), 'no script from the query');
    assert.ok(html.includes('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;'));
    const zebra = await page('/support/other/search?q=zebra');
    const [hit] = resultsOf(zebra.html);
    assert.equal(hit.title, 'Hostile &lt;b&gt;title&lt;/b&gt;');
    assert.ok(hit.where.startsWith('Hostile &lt;b&gt;title&lt;/b&gt; › Tags &amp; '), hit.where);
    assert.match(hit.snippet, /type &amp;lt;script&amp;gt; if 1 &lt; 2 &amp;&amp; &quot;a&quot; &gt; &#39;b&#39;/, 'the text as written, escaped once more');
    assert.match(hit.snippet, /<mark>zebra<\/mark>/);
    assert.ok(!zebra.html.includes('<script>alert'), 'no script from the content');
    assert.ok(!/<i>more|<img src=x/.test(zebra.html), 'no markup from the content');
  });

  test('every #anchor a result links lands on a heading of that topic\'s page, headings with markup or entities too', async () => {
    const checked: string[] = [];
    for (const [version, q] of [['v1', 'slack'], ['v1', 'tasks'], ['v1', 'slash commands'], ['v1', 'webhook events'], ['other', 'zebra'], ['other', 'yak']]) {
      for (const r of resultsOf((await page(`/support/${version}/search?q=${encodeURIComponent(q)}`)).html)) {
        const hash = r.href.indexOf('#');
        if (hash < 0) continue;
        const topic = (await page(r.href.slice(0, hash).replace(/&amp;/g, '&'))).html;
        const id = decodeURIComponent(r.href.slice(hash + 1));
        assert.ok(topic.includes(`id="${escapeHtml(id)}"`), `${r.href} (for "${q}"): the page has ids ${[...topic.matchAll(/<h\d id="([^"]*)"/g)].map((m) => m[1])}`);
        checked.push(r.href);
      }
    }
    assert.ok(checked.some((h) => h.includes('/other/hostile#')) && checked.some((h) => h.includes('/other/entities#')), `checked ${checked}`);
  });

  test('German pages search the German text and keep ?lang=de in every link', async () => {
    const { html } = await page('/support/v1/search?q=slack&lang=de');
    assert.match(html, /<html lang="de"/);
    const shown = resultsOf(html);
    assert.equal(shown[0].title, 'Slack-Integration');
    assert.ok(shown.every((r) => /\?lang=de(#|$)/.test(r.href)), 'links stay in German');
    assert.match(html, /<input type="hidden" name="lang" value="de">/);
  });

  test('the 200-character limit, an empty query, and the answer cache keyed by the offset too', async () => {
    assert.match((await page(`/support/v1/search?q=${'x'.repeat(201)}`)).html, /<p class="notice" role="alert">The search text is too long: at most 200 characters\.<\/p>/);
    const empty = await page('/support/v1/search');
    assert.match(empty.html, /<h1>Search<\/h1>/);
    assert.doesNotMatch(empty.html, /class="result-count"/);
    const one = await page('/support/v1/search?q=tasks');
    const two = await page('/support/v1/search?q=tasks&offset=10');
    const etag = one.headers.get('etag')!;
    assert.ok(etag && two.headers.get('etag') && etag !== two.headers.get('etag'), 'each page of results its own validator');
    assert.notDeepEqual(resultsOf(one.html), resultsOf(two.html));
    assert.deepEqual(resultsOf((await page('/support/v1/search?q=tasks&offset=10')).html), resultsOf(two.html), 'the kept page 2 is page 2');
    assert.equal((await page('/support/v1/search?q=tasks', { 'if-none-match': etag })).status, 304);
    assert.equal((await page('/support/v1/search?q=tasks&offset=10', { 'if-none-match': etag })).status, 200);
  });
});

describe('Marking and paging, as functions', () => {
  test('markRanges marks exactly the given ranges and escapes everything else', () => {
    assert.equal(markRanges('a <b> & "c"', [[0, 1], [3, 4]]).text, '<mark>a</mark> &lt;<mark>b</mark>&gt; &amp; &quot;c&quot;');
    assert.equal(markRanges('Slack slack', []).text, 'Slack slack', 'nothing the ranges do not name, whatever the query was');
  });

  test('markRanges cuts ranges that overlap, run backwards or past the end, and never splits a surrogate pair', () => {
    assert.equal(markRanges('abcdef', [[0, 3], [2, 4], [5, 99]]).text, '<mark>abc</mark><mark>d</mark>e<mark>f</mark>');
    assert.equal(markRanges('abcdef', [[4, 2], [-3, 1], [NaN, 2]]).text, '<mark>a</mark>bcdef');
    assert.equal(markRanges('x😀y', [[2, 3]]).text, 'x<mark>😀</mark>y', 'a range starting inside the pair takes all of it');
    assert.equal(markRanges('x😀y', [[0, 2]]).text, '<mark>x😀</mark>y', 'a range ending inside the pair takes all of it');
  });

  test('resultOffset takes whole numbers up to 9999 and ignores anything else', () => {
    assert.deepEqual(['10', '0', '007', '12345', '99999999999999999999', undefined, '', '-5', 'abc', '1.5', '1e3', ' 10', '0x10'].map(resultOffset), [10, 0, 7, 9999, 9999, 0, 0, 0, 0, 0, 0, 0, 0]);
  });
});

describe('Result links with the search report off', () => {
  test('HELP_SEARCH_REPORT=off: results link straight to their page (and section), not through _open, and nothing is counted', async () => {
    const s = await startTestServer({ sample: SAMPLE, env: { HELP_SEARCH_REPORT: 'off' } });
    try {
      const res = await fetch(`${new URL(s.url).origin}/support/v1/search?q=token`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(res.status, 200);
      const html = await res.text();
      const hrefs = [...html.matchAll(/<ol class="results"[\s\S]*?<\/ol>/g)].flatMap((m) => [...m[0].matchAll(/<h2><a href="([^"]*)">/g)].map((h) => h[1]));
      assert.ok(hrefs.length > 0, 'the search found something');
      assert.ok(hrefs.every((h) => !h.includes('_open')), hrefs.join(' '));
      assert.ok(hrefs.includes('/support/v1/rest-api#authentication'), hrefs.join(' '));
      // The same link works as a plain page address.
      const landed = await fetch(`${new URL(s.url).origin}${hrefs[0].replace(/#.*$/, '')}`, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
      assert.equal(landed.status, 200);
      const report = await s.request('GET', '/versions/v1/search-report');
      assert.equal(report.body.enabled, false);
      assert.equal(report.body.searches, 0);
    } finally {
      await s.close();
    }
  });
});
