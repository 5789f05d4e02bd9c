import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { md } from './helpers/content.ts';
import { createNode, createVersion, startTestServer, type TestResponse, type TestServer } from './helpers/server.ts';

interface Hit {
  slug: string;
  title: string;
  summary: string;
  snippet: string;
}

const HIT_FIELDS = ['slug', 'snippet', 'summary', 'title'];

describe('GET /versions/{version}/search', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  /** Searches and insists on a 200; returns the hits. */
  async function hits(version: string, q: string, opts: { lang?: string; key?: string | null } = {}): Promise<Hit[]> {
    const res = await search(version, q, opts);
    assert.equal(res.status, 200, `search ${version} q=${q}: ${res.text}`);
    return res.body.hits as Hit[];
  }

  function search(version: string, q: string | null, opts: { lang?: string; key?: string | null } = {}): Promise<TestResponse> {
    const params = new URLSearchParams();
    if (q !== null) params.set('q', q);
    if (opts.lang !== undefined) params.set('lang', opts.lang);
    return s.request('GET', `/versions/${version}/search?${params}`, { key: opts.key });
  }

  const slugsOf = (list: Hit[]) => list.map((h) => h.slug);

  async function documentOrder(version: string): Promise<string[]> {
    const res = await s.request('GET', `/versions/${version}/nodes`);
    assert.equal(res.status, 200);
    return (res.body.nodes as Array<{ slug: string }>).map((n) => n.slug);
  }

  describe('matching', () => {
    before(async () => {
      await createVersion(s, 'sm', { status: 'published' });
      const topic = (slug: string, title: string, bodyMd: string, summary = '', extra: Record<string, unknown> = {}) =>
        createNode(s, 'sm', { slug, translations: { en: { title, summary, bodyMd } }, ...extra });
      await topic('both-words', 'Animals', 'The zebra and the giraffe share the enclosure.\n');
      await topic('one-word', 'More animals', 'Only a zebra lives here.\n');
      await topic('setup', 'Setup', 'Please install the package with npm.\n');
      await topic('cafe', 'Coffee', 'Order a Café Crème at the counter.\n');
      await topic('resume', 'Applying', 'Send your resume and a naive cover letter.\n');
      await topic('in-title', 'Pangolin handbook', 'Nothing special in here.\n');
      await topic('in-summary', 'Reptiles', 'Nothing special in here either.\n', 'All about the axolotl.');
      await topic('in-body', 'Birds', 'A cassowary is a large bird.\n');
      await topic('de-only', 'Fridge', 'How to clean the fridge.\n');
      const de = await s.request('PUT', '/versions/sm/topics/de-only/translations/de', {
        body: { title: 'Kühlschrank', bodyMd: 'So reinigen Sie den Kühlschrank mit Essigreiniger.\n' },
      });
      assert.equal(de.status, 200, de.text);
    });

    test('answers { version, language, query, hits } with slug, title, summary and snippet per hit', async () => {
      const res = await search('sm', 'Zebra');
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['hits', 'language', 'query', 'version']);
      assert.equal(res.body.version, 'sm');
      assert.equal(res.body.language, 'en');
      assert.equal(res.body.query, 'Zebra');
      const list = res.body.hits as Hit[];
      assert.ok(list.length > 0);
      for (const h of list) assert.deepEqual(Object.keys(h).sort(), HIT_FIELDS);
      const first = list.find((h) => h.slug === 'both-words')!;
      assert.equal(first.title, 'Animals');
      assert.equal(first.summary, '');
    });

    test('every word of q must occur (AND)', async () => {
      assert.deepEqual(slugsOf(await hits('sm', 'zebra giraffe')), ['both-words']);
      assert.deepEqual(slugsOf(await hits('sm', 'giraffe zebra')), ['both-words']);
      assert.deepEqual(slugsOf(await hits('sm', 'zebra')), ['both-words', 'one-word']);
      assert.deepEqual(await hits('sm', 'zebra hippopotamus'), []);
    });

    test('a word of q matches a word or the start of a word', async () => {
      assert.deepEqual(slugsOf(await hits('sm', 'inst')), ['setup']);
      assert.deepEqual(slugsOf(await hits('sm', 'install')), ['setup']);
      assert.deepEqual(slugsOf(await hits('sm', 'zeb gir')), ['both-words']);
    });

    test('a word in the middle or at the end of another word does not match', async () => {
      assert.deepEqual(await hits('sm', 'stall'), []);
      assert.deepEqual(await hits('sm', 'nstall'), []);
      assert.deepEqual(await hits('sm', 'ebra'), []);
    });

    test('a query word longer than the text word does not match', async () => {
      assert.deepEqual(await hits('sm', 'installer'), []);
    });

    test('matching ignores case', async () => {
      assert.deepEqual(slugsOf(await hits('sm', 'ZEBRA GIRAFFE')), ['both-words']);
      assert.deepEqual(slugsOf(await hits('sm', 'cAfÉ')), ['cafe']);
      assert.deepEqual(slugsOf(await hits('sm', 'pangolin')), ['in-title']);
    });

    test('matching ignores diacritics: plain query finds accented text', async () => {
      const list = await hits('sm', 'cafe creme');
      assert.deepEqual(slugsOf(list), ['cafe']);
      assert.match(list[0].snippet, /Café Crème/, 'the snippet shows the text as written');
      assert.deepEqual(slugsOf(await hits('sm', 'caf')), ['cafe']);
    });

    test('matching ignores diacritics: accented query finds plain text', async () => {
      assert.deepEqual(slugsOf(await hits('sm', 'résumé naïve')), ['resume']);
      assert.deepEqual(slugsOf(await hits('sm', 'Café Crème')), ['cafe']);
    });

    test('matches in the title, the summary and the body are found', async () => {
      assert.deepEqual(slugsOf(await hits('sm', 'pangolin')), ['in-title']);
      assert.deepEqual(slugsOf(await hits('sm', 'axolotl')), ['in-summary']);
      assert.deepEqual(slugsOf(await hits('sm', 'cassowary')), ['in-body']);
    });

    test('the words may be spread over title, summary and body', async () => {
      assert.deepEqual(slugsOf(await hits('sm', 'reptiles axolotl special')), ['in-summary']);
    });

    test('lang selects the language searched; a German-only word is found with lang=de, not with the default en', async () => {
      const de = await search('sm', 'Essigreiniger', { lang: 'de' });
      assert.equal(de.status, 200);
      assert.equal(de.body.language, 'de');
      assert.deepEqual(slugsOf(de.body.hits), ['de-only']);
      assert.equal(de.body.hits[0].title, 'Kühlschrank');
      assert.deepEqual(await hits('sm', 'Essigreiniger'), []);
      assert.deepEqual(await hits('sm', 'Essigreiniger', { lang: 'en' }), []);
      // diacritics are ignored in German too
      assert.deepEqual(slugsOf(await hits('sm', 'kuhlschrank', { lang: 'de' })), ['de-only']);
    });

    test('only the given language is searched: no fallback to English', async () => {
      assert.deepEqual(await hits('sm', 'zebra', { lang: 'de' }), []);
      assert.deepEqual(slugsOf(await hits('sm', 'fridge')), ['de-only']);
      assert.deepEqual(await hits('sm', 'fridge', { lang: 'de' }), []);
    });

    test('a language the version does not have is 400 language_not_enabled naming query/lang, not an empty answer', async () => {
      const res = await search('sm', 'zebra', { lang: 'fr' });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'language_not_enabled');
      assert.equal(res.body.error.field, 'query/lang');
      assert.deepEqual(res.body.error.languages, ['en', 'de']);
      assert.match(res.body.error.message, /Language fr is not enabled on version "sm" \(languages: en, de\)/);
    });

    test('without lang, a version without English is searched in its primary language', async () => {
      await createVersion(s, 'nur-de', { status: 'published', languages: ['de', 'fr'] });
      await createNode(s, 'nur-de', { slug: 'kaffee', translations: { de: { title: 'Kaffee', bodyMd: 'Bestellen Sie einen Milchkaffee.\n' } } });
      const res = await search('nur-de', 'milchkaffee');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.language, 'de');
      assert.deepEqual(slugsOf(res.body.hits), ['kaffee']);
      assert.equal((await search('nur-de', 'milchkaffee', { lang: 'en' })).body.error.code, 'language_not_enabled');
    });

    test('an invalid lang is 400 validation_failed naming query/lang', async () => {
      const res = await search('sm', 'zebra', { lang: 'not a language!' });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.field, 'query/lang');
    });
  });

  describe('order and limit', () => {
    test('hits come in document order, not by score', async () => {
      await createVersion(s, 'so', { status: 'published' });
      // Created in this order; then a node is put first and a child nested, so that document order
      // is: weakest, mid, child, strongest. A ranking by score would put "strongest" first.
      await createNode(s, 'so', { slug: 'mid', translations: { en: { title: 'Harbour', bodyMd: 'The pelican waits at the harbour.\n' } } });
      await createNode(s, 'so', {
        slug: 'strongest',
        translations: { en: { title: 'Pelican pelican', summary: 'Pelican facts', bodyMd: 'Pelican. Pelican pelican pelican.\n' } },
      });
      await createNode(s, 'so', {
        slug: 'weakest',
        sortOrder: -1,
        translations: { en: { title: 'Long story', bodyMd: `${'Filler words about nothing much at all. '.repeat(40)}A pelican, once.\n` } },
      });
      await createNode(s, 'so', { slug: 'child', parentSlug: 'mid', translations: { en: { title: 'Child', bodyMd: 'Another pelican story with several more words in it.\n' } } });
      await createNode(s, 'so', { slug: 'no-match', sortOrder: -0.5, translations: { en: { title: 'Gulls', bodyMd: 'Only gulls here.\n' } } });
      const order = await documentOrder('so');
      assert.deepEqual(order, ['weakest', 'no-match', 'mid', 'child', 'strongest']);
      assert.deepEqual(slugsOf(await hits('so', 'pelican')), ['weakest', 'mid', 'child', 'strongest']);
    });

    test('at most 50 hits: the first 50 matching nodes in document order', async () => {
      await createVersion(s, 'many', { status: 'published' });
      for (let i = 0; i < 60; i++) {
        // every third node goes first, so document order differs from creation order
        const placement = i % 3 === 0 ? { sortOrder: -i } : {};
        await createNode(s, 'many', { slug: `walrus-${i}`, ...placement, translations: { en: { title: `Walrus ${i}`, bodyMd: `Walrus number ${i}.\n` } } });
      }
      const order = await documentOrder('many');
      assert.equal(order.length, 60);
      const list = await hits('many', 'walrus');
      assert.equal(list.length, 50);
      assert.deepEqual(slugsOf(list), order.slice(0, 50));
      // a narrower query still returns all of its (fewer) hits
      assert.deepEqual(slugsOf(await hits('many', 'walrus 7')), order.filter((slug) => slug === 'walrus-7'));
    });
  });

  describe('snippets', () => {
    before(async () => {
      await createVersion(s, 'ss', { status: 'published' });
      const body = [
        'STARTMARKER ' + 'Filler sentence that says nothing of interest. '.repeat(20),
        '',
        '# Configure the flamingo',
        '',
        'Some intro text with **bold flamingo** words, a [flamingo guide](https://example.com/flamingo) and `flamingo --help` here.',
        '',
        '| col | other |',
        '|---|---|',
        '| a | b |',
        '',
        '- a list item',
        '',
        'ENDMARKER',
        '',
      ].join('\n');
      await createNode(s, 'ss', { slug: 'md', translations: { en: { title: 'Markdown page', summary: 'About markdown', bodyMd: body } } });
      await createNode(s, 'ss', { slug: 'sum', translations: { en: { title: 'Summary page', summary: 'The ocelot lives in the summary.', bodyMd: 'The body is about something else entirely.\n' } } });
      await createNode(s, 'ss', { slug: 'emph', translations: { en: { title: 'Emphasis', bodyMd: 'Use **armadillo** and [armadillo docs](https://example.com/a) and `armadillo`.\n' } } });
    });

    test('the snippet is plain text around the first body match', async () => {
      const [hit] = await hits('ss', 'flamingo');
      assert.equal(hit.slug, 'md');
      assert.match(hit.snippet, /flamingo/i);
      assert.ok(!hit.snippet.includes('STARTMARKER'), `the snippet is an excerpt around the match, not the start of a long body: ${hit.snippet}`);
    });

    test('the snippet carries no Markdown syntax', async () => {
      for (const q of ['flamingo', 'armadillo']) {
        const [hit] = await hits('ss', q);
        assert.ok(hit, `a hit for ${q}`);
        assert.match(hit.snippet, new RegExp(q));
        assert.ok(!hit.snippet.includes('**'), `no ** in ${JSON.stringify(hit.snippet)}`);
        assert.ok(!hit.snippet.includes(']('), `no ]( in ${JSON.stringify(hit.snippet)}`);
        assert.ok(!hit.snippet.includes('`'), `no backtick in ${JSON.stringify(hit.snippet)}`);
        assert.ok(!hit.snippet.includes('|'), `no table pipe in ${JSON.stringify(hit.snippet)}`);
        assert.ok(!/^\s*#/.test(hit.snippet), `no leading # in ${JSON.stringify(hit.snippet)}`);
        assert.ok(!/(^|\s)#{1,6}\s/.test(hit.snippet), `no heading marker in ${JSON.stringify(hit.snippet)}`);
        assert.ok(!hit.snippet.includes('https://example.com'), `no link target in ${JSON.stringify(hit.snippet)}`);
      }
    });

    test('link text stays in the snippet while the link syntax goes', async () => {
      const [hit] = await hits('ss', 'docs armadillo');
      assert.equal(hit.slug, 'emph');
      assert.match(hit.snippet, /armadillo docs/);
    });

    test('a match deep in a long body: the snippet shows the lines around it, cut at words, with … on both sides', async () => {
      const filler = Array.from({ length: 400 }, (_, i) => `Line ${i} of *padding* text about nothing in particular.`).join('\n');
      const bodyMd = `${filler}\n\nHere the **quokka** appears, and the text goes on after it for a while longer.\n${filler}\n`;
      await createNode(s, 'ss', { slug: 'deep', translations: { en: { title: 'Deep page', bodyMd } } });
      const [hit] = await hits('ss', 'quokka');
      assert.equal(hit.slug, 'deep');
      assert.match(hit.snippet, /^…[a-z ]*particular\. Here the quokka appears, and the text goes on after it for a while longer\. Line 0 of .*…$/);
      assert.ok([...hit.snippet].length <= 162, `about 160 characters: ${hit.snippet.length}`);
      assert.ok(!hit.snippet.includes('*'), hit.snippet);
    });

    test('a Latin snippet starts and ends on whole words', async () => {
      const words = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
      await createNode(s, 'ss', { slug: 'words', translations: { en: { title: 'Words', bodyMd: `${words} narwhal ${words}\n` } } });
      const [hit] = await hits('ss', 'narwhal');
      assert.equal(hit.slug, 'words');
      const inner = hit.snippet.replace(/^…/, '').replace(/…$/, '');
      assert.ok(hit.snippet.startsWith('…') && hit.snippet.endsWith('…'), hit.snippet);
      for (const w of inner.split(' ')) assert.match(w, /^(word\d+|narwhal)$/, `${JSON.stringify(w)} is a whole word of ${hit.snippet}`);
      assert.ok(inner.length <= 160 && inner.length > 140, `${inner.length} characters`);
    });

    test('a match at the very start: no … before it', async () => {
      await createNode(s, 'ss', { slug: 'first', translations: { en: { title: 'First', bodyMd: 'Wombat first.\nAnd then more.\n' } } });
      const [hit] = await hits('ss', 'wombat');
      assert.equal(hit.snippet, 'Wombat first. And then more.');
    });

    test('the snippet falls back to the summary when only the summary matches', async () => {
      const [hit] = await hits('ss', 'ocelot');
      assert.equal(hit.slug, 'sum');
      assert.equal(hit.summary, 'The ocelot lives in the summary.');
      assert.match(hit.snippet, /ocelot/);
      assert.ok(!hit.snippet.includes('something else entirely'), hit.snippet);
    });
  });

  describe('Japanese and Chinese', () => {
    before(async () => {
      await createVersion(s, 'cjk', { status: 'published', languages: ['en', 'ja', 'zh'] });
      await createNode(s, 'cjk', {
        slug: 'account',
        translations: {
          en: { title: 'Account', bodyMd: 'Change your account settings.\n' },
          ja: { title: 'アカウント', bodyMd: 'アカウントの設定を変更します。\n' },
          zh: { title: '账户', bodyMd: '要更改账户设置，请打开菜单。\n' },
        },
      });
      await createNode(s, 'cjk', {
        slug: 'other',
        translations: {
          en: { title: 'Other', bodyMd: 'Something else.\n' },
          ja: { title: 'その他', bodyMd: 'パスワードを忘れた場合はこちら。\n' },
          zh: { title: '其他', bodyMd: '忘记密码时请点击这里。\n' },
        },
      });
    });

    test('a Japanese word inside an unspaced sentence is found', async () => {
      const res = await search('cjk', '設定', { lang: 'ja' });
      assert.equal(res.status, 200);
      assert.equal(res.body.language, 'ja');
      assert.deepEqual(slugsOf(res.body.hits), ['account']);
      assert.match(res.body.hits[0].snippet, /設定/);
      assert.deepEqual(slugsOf(await hits('cjk', '変更', { lang: 'ja' })), ['account']);
      assert.deepEqual(slugsOf(await hits('cjk', 'パスワード', { lang: 'ja' })), ['other']);
    });

    test('several Japanese words must all occur', async () => {
      assert.deepEqual(slugsOf(await hits('cjk', '設定 変更', { lang: 'ja' })), ['account']);
      assert.deepEqual(await hits('cjk', '設定 パスワード', { lang: 'ja' }), []);
    });

    test('a Chinese word inside an unspaced sentence is found', async () => {
      const res = await search('cjk', '账户', { lang: 'zh' });
      assert.equal(res.status, 200);
      assert.deepEqual(slugsOf(res.body.hits), ['account']);
      assert.match(res.body.hits[0].snippet, /账户/);
      assert.deepEqual(slugsOf(await hits('cjk', '设置', { lang: 'zh' })), ['account']);
      assert.deepEqual(slugsOf(await hits('cjk', '密码', { lang: 'zh' })), ['other']);
    });

    test('a Japanese word inside a compound is found, and a single character finds every text holding it', async () => {
      await createNode(s, 'cjk', { slug: 'admin', translations: { en: { title: 'Admin' }, ja: { title: '管理画面', bodyMd: '管理画面からメンバーを招待します。\n' } } });
      assert.deepEqual(slugsOf(await hits('cjk', '画面', { lang: 'ja' })), ['admin']);
      assert.deepEqual(slugsOf(await hits('cjk', '管理画面 招待', { lang: 'ja' })), ['admin']);
      assert.deepEqual(slugsOf(await hits('cjk', '定', { lang: 'ja' })), ['account']);
      assert.deepEqual(slugsOf(await hits('cjk', '面', { lang: 'ja' })), ['admin'], 'the last character of a run');
      assert.deepEqual(await hits('cjk', '画面設定', { lang: 'ja' }), [], 'every pair of the query word must occur');
    });

    test('a query mixing Latin and Japanese words needs both', async () => {
      await createNode(s, 'cjk', { slug: 'api-ja', translations: { en: { title: 'API' }, ja: { title: 'API キー', bodyMd: 'REST APIのキーを作成します。\n' } } });
      assert.deepEqual(slugsOf(await hits('cjk', 'api キー', { lang: 'ja' })), ['api-ja']);
      assert.deepEqual(slugsOf(await hits('cjk', 'rest 作成', { lang: 'ja' })), ['api-ja']);
      assert.deepEqual(await hits('cjk', 'rest 画面', { lang: 'ja' }), []);
    });

    test('a Japanese snippet is as wide as an English one (about 80 characters), holds the match, and is cut inside the run', async () => {
      const long = 'この段落はとても長い説明文で、いくつもの手順を順番に説明しています。'.repeat(6);
      await createNode(s, 'cjk', { slug: 'long-ja', translations: { en: { title: 'Long' }, ja: { title: '長い説明', bodyMd: `前書き ${long}ここで黒板消しを使います。${long}\n` } } });
      const [hit] = await hits('cjk', '黒板消し', { lang: 'ja' });
      assert.equal(hit.slug, 'long-ja');
      assert.match(hit.snippet, /黒板消しを使います/);
      assert.match(hit.snippet, /^…[^ ]+…$/, 'cut inside the unspaced text on both sides, not at the only space');
      const chars = [...hit.snippet].length - 2;
      assert.ok(chars >= 75 && chars <= 80, `${chars} characters`);
    });

    test('Japanese words are not found in the Chinese or English text', async () => {
      assert.deepEqual(await hits('cjk', 'パスワード', { lang: 'zh' }), []);
      assert.deepEqual(await hits('cjk', '設定'), []);
    });
  });

  describe('the query parameter q', () => {
    before(async () => {
      await createVersion(s, 'sq', { status: 'published' });
      await createNode(s, 'sq', { slug: 'one', translations: { en: { title: 'One', bodyMd: 'Word.\n' } } });
    });

    const assertQueryRefused = (res: TestResponse) => {
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.field, 'query/q');
      assert.ok(typeof res.body.error.requestId === 'string' && res.body.error.requestId.length > 0);
    };

    test('q missing is 400 validation_failed naming query/q', async () => {
      assertQueryRefused(await search('sq', null));
      assertQueryRefused(await search('sq', null, { key: null }));
    });

    test('q empty is 400 validation_failed naming query/q', async () => {
      assertQueryRefused(await search('sq', ''));
    });

    test('q of 201 characters is 400 validation_failed naming query/q', async () => {
      assertQueryRefused(await search('sq', 'w'.repeat(201)));
      assertQueryRefused(await search('sq', `word ${'x'.repeat(196)}`));
    });

    test('q of 200 characters is accepted', async () => {
      const q = `word ${'x'.repeat(195)}`;
      assert.equal(q.length, 200);
      const res = await search('sq', q);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.query, q);
      assert.deepEqual(res.body.hits, []);
      assert.deepEqual(slugsOf(await hits('sq', `${'word '.repeat(39)}word`)), ['one']);
    });

    test('the length of q is counted in characters, not UTF-16 units', async () => {
      const ok = await search('sq', '😀'.repeat(200));
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(ok.body.hits, []);
      assertQueryRefused(await search('sq', '😀'.repeat(201)));
    });

    test('a refused search writes nothing', async () => {
      const commits = s.commitCount();
      await search('sq', '');
      assert.equal(s.commitCount(), commits);
    });
  });

  describe('visibility', () => {
    before(async () => {
      await createVersion(s, 'sdraft');
      await createNode(s, 'sdraft', { slug: 'secret', translations: { en: { title: 'Secret', bodyMd: 'The quetzal plan.\n' } } });
      await createVersion(s, 'sarch', { status: 'archived' });
      await createNode(s, 'sarch', { slug: 'old', translations: { en: { title: 'Old', bodyMd: 'The quetzal archive.\n' } } });
    });

    test('anonymous search of a draft version is 404 not_found', async () => {
      const res = await search('sdraft', 'quetzal', { key: null });
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
      assert.equal(res.body.error.resource, 'version');
    });

    test('anonymous search of an archived version is 404 not_found', async () => {
      const res = await search('sarch', 'quetzal', { key: null });
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    });

    test('with a key, a draft version can be searched', async () => {
      assert.deepEqual(slugsOf(await hits('sdraft', 'quetzal')), ['secret']);
      assert.deepEqual(slugsOf(await hits('sarch', 'quetzal')), ['old']);
    });

    test('with a read-only key, a draft version can be searched', async () => {
      const reader = await s.createKey({ name: 'search-reader', scopes: 'help:read' });
      const deadline = Date.now() + 2000;
      while ((await s.request('GET', '/whoami', { key: reader })).status !== 200) {
        assert.ok(Date.now() < deadline, 'the new key is accepted within 2 s');
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.deepEqual(slugsOf(await hits('sdraft', 'quetzal', { key: reader })), ['secret']);
    });

    test('anonymous search of a published version is 200', async () => {
      await createVersion(s, 'spub', { status: 'published' });
      await createNode(s, 'spub', { slug: 'open', translations: { en: { title: 'Open', bodyMd: 'The quetzal in public.\n' } } });
      assert.deepEqual(slugsOf(await hits('spub', 'quetzal', { key: null })), ['open']);
    });

    test('an unknown version is 404 not_found', async () => {
      for (const key of [undefined, null]) {
        const res = await search('no-such-version', 'quetzal', { key });
        assert.equal(res.status, 404);
        assert.equal(res.body.error.code, 'not_found');
        assert.equal(res.body.error.resource, 'version');
      }
    });

    test('an invalid key is 401 even on a published version', async () => {
      const res = await search('spub', 'quetzal', { key: 'help_not-a-real-key' });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'unauthorized');
    });
  });

  describe('the index follows writes', () => {
    before(async () => {
      await createVersion(s, 'live', { status: 'published' });
      await createNode(s, 'live', { slug: 'animal', translations: { en: { title: 'Animal', bodyMd: 'The marmot sleeps all winter.\n' } } });
      await createNode(s, 'live', {
        slug: 'bilingual',
        translations: { en: { title: 'Bilingual', bodyMd: 'An English buffalo.\n' }, de: { title: 'Zweisprachig', bodyMd: 'Ein deutscher Wasserbüffel.\n' } },
      });
      await createNode(s, 'live', { slug: 'parent', translations: { en: { title: 'Parent', bodyMd: 'The jackal parent.\n' } } });
      await createNode(s, 'live', { slug: 'kid', parentSlug: 'parent', translations: { en: { title: 'Kid', bodyMd: 'The jackal kid.\n' } } });
    });

    test('after PUT of a translation the new word is found and the old word is gone', async () => {
      assert.deepEqual(slugsOf(await hits('live', 'marmot')), ['animal']);
      const res = await s.request('PUT', '/versions/live/topics/animal/translations/en', { body: { title: 'Animal', bodyMd: 'The lemur climbs trees.\n' } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(await hits('live', 'marmot'), []);
      assert.deepEqual(slugsOf(await hits('live', 'lemur')), ['animal']);
    });

    test('after PUT of a new translation it is found in its language', async () => {
      assert.deepEqual(await hits('live', 'Murmeltier', { lang: 'de' }), []);
      const res = await s.request('PUT', '/versions/live/topics/animal/translations/de', { body: { title: 'Tier', bodyMd: 'Das Murmeltier schläft.\n' } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(slugsOf(await hits('live', 'Murmeltier', { lang: 'de' })), ['animal']);
    });

    test('after PATCH of a node\'s translations the new title is found', async () => {
      const res = await s.request('PATCH', '/versions/live/nodes/animal', { body: { translations: { en: { title: 'Primate corner' } } } });
      assert.equal(res.status, 200, res.text);
      const list = await hits('live', 'primate');
      assert.deepEqual(slugsOf(list), ['animal']);
      assert.equal(list[0].title, 'Primate corner');
      assert.deepEqual(await hits('live', 'animal lemur'), []);
    });

    test('after a PATCH rename the hit carries the new slug', async () => {
      const res = await s.request('PATCH', '/versions/live/nodes/animal', { body: { slug: 'creature' } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(slugsOf(await hits('live', 'lemur')), ['creature']);
      assert.deepEqual(slugsOf(await hits('live', 'murmeltier', { lang: 'de' })), ['creature']);
    });

    test('after DELETE of a node it and its descendants are gone', async () => {
      assert.deepEqual(slugsOf(await hits('live', 'jackal')), ['parent', 'kid']);
      const res = await s.request('DELETE', '/versions/live/nodes/parent');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(await hits('live', 'jackal'), []);
    });

    test('after DELETE of a translation it is gone in that language only', async () => {
      assert.deepEqual(slugsOf(await hits('live', 'wasserbuffel', { lang: 'de' })), ['bilingual']);
      const res = await s.request('DELETE', '/versions/live/topics/bilingual/translations/de');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(await hits('live', 'wasserbuffel', { lang: 'de' }), []);
      assert.deepEqual(slugsOf(await hits('live', 'buffalo')), ['bilingual']);
    });

    test('after a duplicate the copy is searchable, and the copy and the original are indexed apart', async () => {
      const res = await s.request('POST', '/versions/live/duplicate', { body: { slug: 'live-copy', label: 'Copy' } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(slugsOf(await hits('live-copy', 'lemur')), ['creature']);
      assert.deepEqual(slugsOf(await hits('live-copy', 'buffalo')), ['bilingual']);
      const put = await s.request('PUT', '/versions/live-copy/topics/creature/translations/en', { body: { title: 'Creature', bodyMd: 'The copy has a wombat.\n' } });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual(slugsOf(await hits('live-copy', 'wombat')), ['creature']);
      assert.deepEqual(await hits('live', 'wombat'), []);
      assert.deepEqual(slugsOf(await hits('live', 'lemur')), ['creature']);
    });

    test('after deleting a version its search is 404', async () => {
      const res = await s.request('DELETE', '/versions/live-copy');
      assert.equal(res.status, 200, res.text);
      const after = await search('live-copy', 'wombat');
      assert.equal(after.status, 404);
      assert.equal(after.body.error.code, 'not_found');
    });

    test('a version created again under a deleted slug does not find the old content', async () => {
      await createVersion(s, 'live-copy', { status: 'published' });
      assert.deepEqual(await hits('live-copy', 'wombat'), []);
      assert.deepEqual(await hits('live-copy', 'lemur'), []);
    });

    test('after a status change to draft, anonymous search is 404', async () => {
      await createVersion(s, 'live-status', { status: 'published' });
      await createNode(s, 'live-status', { slug: 'x', translations: { en: { title: 'X', bodyMd: 'The dingo.\n' } } });
      assert.deepEqual(slugsOf(await hits('live-status', 'dingo', { key: null })), ['x']);
      const res = await s.request('PATCH', '/versions/live-status', { body: { status: 'draft' } });
      assert.equal(res.status, 200, res.text);
      assert.equal((await search('live-status', 'dingo', { key: null })).status, 404);
      assert.deepEqual(slugsOf(await hits('live-status', 'dingo')), ['x']);
    });

    test('after an import the new content is found (merge), and nodes a replace import drops are gone', async () => {
      const merge = await s.request('POST', '/versions/live/import', {
        body: { nodes: [{ slug: 'imported', translations: { en: { title: 'Imported', bodyMd: 'A capybara arrives.\n' } } }] },
      });
      assert.equal(merge.status, 200, merge.text);
      assert.deepEqual(slugsOf(await hits('live', 'capybara')), ['imported']);
      const replace = await s.request('POST', '/versions/live/import', {
        body: { mode: 'replace', nodes: [{ slug: 'imported', translations: { en: { title: 'Imported', bodyMd: 'Now a tapir.\n' } } }] },
      });
      assert.equal(replace.status, 200, replace.text);
      assert.deepEqual(await hits('live', 'capybara'), []);
      assert.deepEqual(await hits('live', 'lemur'), []);
      assert.deepEqual(await hits('live', 'buffalo'), []);
      assert.deepEqual(slugsOf(await hits('live', 'tapir')), ['imported']);
    });

    test('a dry-run import changes nothing in the index', async () => {
      const dry = await s.request('POST', '/versions/live/import', {
        body: { dryRun: true, nodes: [{ slug: 'imported', translations: { en: { title: 'Imported', bodyMd: 'A dry okapi.\n' } } }] },
      });
      assert.equal(dry.status, 200, dry.text);
      assert.deepEqual(await hits('live', 'okapi'), []);
      assert.deepEqual(slugsOf(await hits('live', 'tapir')), ['imported']);
    });

    const versionJson = (nav: unknown[]) => JSON.stringify({ label: 'From files', languages: ['en', 'de'], nav }, null, 2);

    test('after import-files into a new version its content is found', async () => {
      const res = await s.request('POST', '/versions/from-files/import-files', {
        body: {
          files: [
            { path: 'version.json', content: versionJson(['gecko-page', { slug: 'sec', children: ['nested'] }]) },
            { path: 'en/gecko-page.md', content: md('Gecko page', 'The gecko climbs walls.\n') },
            { path: 'de/gecko-page.md', content: md('Gecko Seite', 'Der Gecko klettert an Wänden.\n') },
            { path: 'en/sec.md', content: md('Section', '') },
            { path: 'en/nested.md', content: md('Nested', 'A nested iguana.\n') },
          ],
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(slugsOf(await hits('from-files', 'gecko', { key: null })), ['gecko-page']);
      assert.deepEqual(slugsOf(await hits('from-files', 'wanden', { lang: 'de', key: null })), ['gecko-page']);
      assert.deepEqual(slugsOf(await hits('from-files', 'iguana', { key: null })), ['nested']);
    });

    test('after import-files replacing a version the new content is found and the old is gone', async () => {
      const res = await s.request('POST', '/versions/from-files/import-files', {
        body: {
          files: [
            { path: 'version.json', content: versionJson(['gecko-page', 'newcomer']) },
            { path: 'en/gecko-page.md', content: md('Lizard page', 'Now a chameleon.\n') },
            { path: 'en/newcomer.md', content: md('Newcomer', 'A salamander.\n') },
          ],
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(await hits('from-files', 'gecko'), []);
      assert.deepEqual(await hits('from-files', 'wanden', { lang: 'de' }), []);
      assert.deepEqual(await hits('from-files', 'iguana'), []);
      assert.deepEqual(slugsOf(await hits('from-files', 'chameleon')), ['gecko-page']);
      assert.deepEqual(slugsOf(await hits('from-files', 'salamander')), ['newcomer']);
    });

    test('after removing a language from a version, searching it is refused, and its old text is not found once it is back', async () => {
      await createVersion(s, 'live-lang', { status: 'published' });
      await createNode(s, 'live-lang', {
        slug: 'page',
        translations: { en: { title: 'Page', bodyMd: 'The heron.\n' }, de: { title: 'Seite', bodyMd: 'Der Fischreiher.\n' } },
      });
      assert.deepEqual(slugsOf(await hits('live-lang', 'fischreiher', { lang: 'de' })), ['page']);
      const del = await s.request('DELETE', '/versions/live-lang/topics/page/translations/de');
      assert.equal(del.status, 200, del.text);
      const patch = await s.request('PATCH', '/versions/live-lang', { body: { languages: ['en'] } });
      assert.equal(patch.status, 200, patch.text);
      assert.equal((await search('live-lang', 'fischreiher', { lang: 'de' })).body.error?.code, 'language_not_enabled');
      assert.deepEqual(slugsOf(await hits('live-lang', 'heron')), ['page']);
      assert.equal((await s.request('PATCH', '/versions/live-lang', { body: { languages: ['en', 'de'] } })).status, 200);
      assert.deepEqual(await hits('live-lang', 'fischreiher', { lang: 'de' }), []);
    });

    test('after a restart the index is rebuilt from the stored content', async () => {
      s = await s.restart();
      assert.deepEqual(slugsOf(await hits('live', 'tapir', { key: null })), ['imported']);
      assert.deepEqual(await hits('live', 'capybara'), []);
      assert.deepEqual(slugsOf(await hits('from-files', 'salamander')), ['newcomer']);
      assert.deepEqual(await hits('from-files', 'gecko'), []);
      assert.deepEqual(slugsOf(await hits('cjk', '設定', { lang: 'ja' })), ['account']);
      assert.deepEqual(slugsOf(await hits('sm', 'cafe creme')), ['cafe']);
      assert.deepEqual(slugsOf(await hits('sm', 'Essigreiniger', { lang: 'de' })), ['de-only']);
      assert.equal((await hits('many', 'walrus')).length, 50);
      assert.deepEqual(slugsOf(await hits('so', 'pelican')), ['weakest', 'mid', 'child', 'strongest']);
      assert.equal((await search('sdraft', 'quetzal', { key: null })).status, 404);
      assert.deepEqual(slugsOf(await hits('sdraft', 'quetzal')), ['secret']);
      assert.equal((await search('no-such-version', 'x')).status, 404);
    });
  });
});

describe('Search keeps Japanese voiced kana apart', () => {
  test('ラベル (label) is found, and does not match ラヘル', async () => {
    const s = await startTestServer();
    try {
      await createVersion(s, 'kana', { status: 'published', languages: ['en', 'ja'] });
      await createNode(s, 'kana', { slug: 'labels', translations: { en: { title: 'Labels' }, ja: { title: 'ラベル 設定', bodyMd: 'ラベルを設定します。' } } });
      await createNode(s, 'kana', { slug: 'other', translations: { en: { title: 'Other' }, ja: { title: 'ラヘル', bodyMd: 'ラヘル' } } });
      const hit = await s.request('GET', `/versions/kana/search?q=${encodeURIComponent('ラベル 設定')}&lang=ja`, { key: null });
      assert.deepEqual(hit.body.hits.map((h: { slug: string }) => h.slug), ['labels']);
    } finally {
      await s.close();
    }
  });
});
