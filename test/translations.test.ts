import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, ISO_MS } from './helpers/assertions.ts';
import { changesOf } from './helpers/git.ts';
import { createNode, createVersion, putTranslation as put, startTestServer, type TestServer } from './helpers/server.ts';

/** The body of a stored Markdown file: everything after the closing frontmatter line. */
function storedBody(s: TestServer, path: string): string {
  const text = s.git('show', `HEAD:${path}`);
  assert.ok(text.startsWith('---\n'), text);
  const close = text.indexOf('\n---\n', 3);
  assert.ok(close > 0, text);
  return text.slice(close + 5);
}

describe('Translations: PUT /versions/{version}/topics/{slug}/translations/{lang}', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { languages: ['en', 'de'] });
    await createNode(s, 'v1', { slug: 'doc', translations: { en: { title: 'Doc', summary: 'About', bodyMd: 'English body\n' } } });
  });
  after(() => s.close());

  test('creates a missing translation: created true, one commit adding exactly <version>/<lang>/<slug>.md', async () => {
    const commits = s.commitCount();
    const res = await put(s, 'v1', 'doc', 'de', { title: 'Dokument', summary: 'Über', bodyMd: 'Deutscher Text\n' });
    assert.equal(res.status, 200, res.text);
    const t = res.body.translation;
    assert.deepEqual(Object.keys(res.body), ['translation']);
    assert.deepEqual(Object.keys(t).sort(), ['bodyMd', 'created', 'language', 'slug', 'summary', 'title', 'updatedAt']);
    assert.equal(t.slug, 'doc');
    assert.equal(t.language, 'de');
    assert.equal(t.title, 'Dokument');
    assert.equal(t.summary, 'Über');
    assert.equal(t.bodyMd, 'Deutscher Text\n');
    assert.equal(t.created, true);
    assert.match(t.updatedAt, ISO_MS);
    assert.equal(s.commitCount(), commits + 1);
    assert.deepEqual(changesOf(s), ['A\tv1/de/doc.md']);
    assert.equal(s.git('log', '-1', '--format=%an').trim(), 'writer');
    assert.equal(storedBody(s, 'v1/de/doc.md'), 'Deutscher Text\n');
    const read = await s.request('GET', '/versions/v1/topics/doc/translations/de');
    assert.equal(read.status, 200);
    assert.deepEqual(
      { title: read.body.title, summary: read.body.summary, bodyMd: read.body.bodyMd, updatedAt: read.body.updatedAt },
      { title: 'Dokument', summary: 'Über', bodyMd: 'Deutscher Text\n', updatedAt: t.updatedAt },
    );
    assert.deepEqual([...read.body.availableLanguages].sort(), ['de', 'en']);
  });

  test('replaces an existing translation in full: created false, omitted summary and bodyMd become empty', async () => {
    const commits = s.commitCount();
    const res = await put(s, 'v1', 'doc', 'de', { title: 'Nur Titel' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.translation.created, false);
    assert.equal(res.body.translation.title, 'Nur Titel');
    assert.equal(res.body.translation.summary, '');
    assert.equal(res.body.translation.bodyMd, '');
    assert.equal(s.commitCount(), commits + 1);
    assert.deepEqual(changesOf(s), ['M\tv1/de/doc.md']);
    const file = s.git('show', 'HEAD:v1/de/doc.md');
    assert.doesNotMatch(file, /Über|Deutscher Text/);
    assert.equal(storedBody(s, 'v1/de/doc.md'), '');
    const read = await s.request('GET', '/versions/v1/topics/doc/translations/de');
    assert.equal(read.body.title, 'Nur Titel');
    assert.equal(read.body.summary, '');
    assert.equal(read.body.bodyMd, '');
    const list = await s.request('GET', '/versions/v1/nodes');
    assert.deepEqual(list.body.nodes[0].translations.de, { title: 'Nur Titel', summary: '', updatedAt: res.body.translation.updatedAt, bodyChars: 0 });
    // the other language is untouched
    const en = await s.request('GET', '/versions/v1/topics/doc/translations/en');
    assert.equal(en.body.bodyMd, 'English body\n');
  });

  test('replacing the primary language\'s translation works too', async () => {
    const res = await put(s, 'v1', 'doc', 'en', { title: 'Doc 2', bodyMd: 'New English' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.translation.created, false);
    assert.deepEqual(changesOf(s), ['M\tv1/en/doc.md']);
    const topic = await s.request('GET', '/versions/v1/topics/doc');
    assert.equal(topic.body.title, 'Doc 2');
    assert.equal(topic.body.summary, '');
    assert.equal(topic.body.bodyMd, 'New English');
  });

  test('a language not enabled on the version is 400 language_not_enabled with no commit', async () => {
    const commits = s.commitCount();
    const res = await put(s, 'v1', 'doc', 'fr', { title: 'Document' });
    const err = assertError(res, 400, 'language_not_enabled');
    assert.equal(err.language, 'fr');
    assert.equal(s.commitCount(), commits);
    assert.equal((await s.request('GET', '/versions/v1/topics/doc/translations/fr')).status, 404);
  });

  test('the language is canonicalized: pt-br on a version with pt-BR is stored as pt-BR', async () => {
    await createVersion(s, 'pt', { languages: ['en', 'pt-BR'] });
    await createNode(s, 'pt', { slug: 'doc' });
    const commits = s.commitCount();
    const res = await put(s, 'pt', 'doc', 'pt-br', { title: 'Documento', bodyMd: 'Olá' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.translation.language, 'pt-BR');
    assert.equal(res.body.translation.created, true);
    assert.equal(s.commitCount(), commits + 1);
    assert.deepEqual(changesOf(s), ['A\tpt/pt-BR/doc.md']);
    const again = await put(s, 'pt', 'doc', 'PT-br', { title: 'Documento 2', bodyMd: 'Olá 2' });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.translation.created, false);
    assert.deepEqual(changesOf(s), ['M\tpt/pt-BR/doc.md']);
    const read = await s.request('GET', '/versions/pt/topics/doc/translations/pt-BR');
    assert.equal(read.status, 200);
    assert.equal(read.body.language, 'pt-BR');
    assert.equal(read.body.title, 'Documento 2');
    assert.deepEqual([...read.body.availableLanguages].sort(), ['en', 'pt-BR']);
    const topic = await s.request('GET', '/versions/pt/topics/doc?language=pt-BR');
    assert.equal(topic.body.language, 'pt-BR');
    assert.equal(topic.body.bodyMd, 'Olá 2');
  });

  for (const lang of ['english', 'e', 'en_US', '12', 'en-', 'x-klingon-too-long-tag-!']) {
    test(`an invalid language ${JSON.stringify(lang)} is 400 validation_failed naming path/lang`, async () => {
      const commits = s.commitCount();
      const res = await put(s, 'v1', 'doc', encodeURIComponent(lang), { title: 'T' });
      const err = assertError(res, 400, 'validation_failed');
      assert.equal(err.field, 'path/lang');
      assert.equal(s.commitCount(), commits);
    });
  }

  test('a stale expectedUpdatedAt is 409 stale_write with currentUpdatedAt and writes nothing', async () => {
    await createNode(s, 'v1', { slug: 'st', translations: { en: { title: 'St' } } });
    const first = await put(s, 'v1', 'st', 'de', { title: 'Eins' });
    const second = await put(s, 'v1', 'st', 'de', { title: 'Zwei', expectedUpdatedAt: first.body.translation.updatedAt });
    assert.equal(second.status, 200, second.text);
    const commits = s.commitCount();
    const stale = await put(s, 'v1', 'st', 'de', { title: 'Drei', expectedUpdatedAt: first.body.translation.updatedAt });
    const err = assertError(stale, 409, 'stale_write');
    assert.equal(err.currentUpdatedAt, second.body.translation.updatedAt);
    assert.equal(s.commitCount(), commits);
    assert.equal((await s.request('GET', '/versions/v1/topics/st/translations/de')).body.title, 'Zwei');
    const retry = await put(s, 'v1', 'st', 'de', { title: 'Drei', expectedUpdatedAt: err.currentUpdatedAt });
    assert.equal(retry.status, 200, retry.text);
  });

  test('a stale If-Unmodified-Since (ISO stamp or HTTP-date) is 409 stale_write; a current one is 200', async () => {
    const cur = (await s.request('GET', '/versions/v1/topics/st/translations/de')).body.updatedAt as string;
    const commits = s.commitCount();
    const isoOld = await put(s, 'v1', 'st', 'de', { title: 'X' }, { 'if-unmodified-since': new Date(Date.parse(cur) - 1).toISOString() });
    assertError(isoOld, 409, 'stale_write');
    const httpOld = await put(s, 'v1', 'st', 'de', { title: 'X' }, { 'if-unmodified-since': new Date(Date.parse(cur) - 5000).toUTCString() });
    assert.equal(assertError(httpOld, 409, 'stale_write').currentUpdatedAt, cur);
    assert.equal(s.commitCount(), commits);
    const ok = await put(s, 'v1', 'st', 'de', { title: 'Vier' }, { 'if-unmodified-since': cur });
    assert.equal(ok.status, 200, ok.text);
    const future = await put(s, 'v1', 'st', 'de', { title: 'Fünf' }, { 'if-unmodified-since': new Date(Date.now() + 3_600_000).toUTCString() });
    assert.equal(future.status, 200, future.text);
  });

  test('expectedUpdatedAt on a missing translation is 409 stale_write and creates nothing', async () => {
    await createNode(s, 'v1', { slug: 'no-de' });
    const commits = s.commitCount();
    const res = await put(s, 'v1', 'no-de', 'de', { title: 'Neu', expectedUpdatedAt: new Date().toISOString() });
    assertError(res, 409, 'stale_write');
    assert.equal(s.commitCount(), commits);
    assert.equal((await s.request('GET', '/versions/v1/topics/no-de/translations/de')).status, 404);
  });

  test('an unknown node is 404 not_found (resource node); an unknown version is 404 (resource version)', async () => {
    const commits = s.commitCount();
    const res = await put(s, 'v1', 'ghost', 'en', { title: 'Ghost' });
    assert.equal(assertError(res, 404, 'not_found').resource, 'node');
    const v = await put(s, 'nope', 'doc', 'en', { title: 'Ghost' });
    assert.equal(assertError(v, 404, 'not_found').resource, 'version');
    assert.equal(s.commitCount(), commits);
  });

  test('title is required, 1 to 200 characters: otherwise 400 naming body/title', async () => {
    const commits = s.commitCount();
    for (const body of [{}, { title: '' }, { title: 'x'.repeat(201) }, { bodyMd: 'only body' }]) {
      const res = await put(s, 'v1', 'doc', 'de', body);
      assert.equal(assertError(res, 400, 'validation_failed').field, 'body/title', JSON.stringify(body).slice(0, 40));
    }
    assert.equal(s.commitCount(), commits);
    const max = await put(s, 'v1', 'doc', 'de', { title: 't'.repeat(200) });
    assert.equal(max.status, 200, max.text);
  });

  test('an unknown body field is 400 naming body/<field>', async () => {
    const res = await put(s, 'v1', 'doc', 'de', { title: 'T', language: 'de' });
    assert.equal(assertError(res, 400, 'validation_failed').field, 'body/language');
  });
});

describe('Translations: bodyMd and frontmatter round-trip exactly', () => {
  let s: TestServer;
  const bodies: Array<[string, string]> = [
    ['no trailing newline', 'Just text, no newline at the end'],
    ['trailing newlines', 'Ends with two newlines\n\n'],
    ['leading --- lines', '---\nnot: frontmatter\n---\nafter the rule\n'],
    ['only --- lines', '---\n---\n'],
    ['a leading blank line', '\nStarts with a blank line'],
    ['Unicode with emoji and CJK', 'Grüße 👋🏽 — 你好，世界！ 日本語テキスト 한국어 🚀\n'],
    ['CRLF line endings', 'line one\r\nline two\r\n\r\nline four\r\n'],
    ['a leading CRLF', '\r\nafter CRLF'],
    ['leading and trailing spaces', '   indented code?\n    four spaces   '],
    ['Markdown with code fences and YAML-looking text', '# Heading\n\n```yaml\n---\ntitle: fake\n---\n```\n\n> quote: yes\n'],
    ['an empty body', ''],
  ];
  const titles = ['Title: with colon # and hash', "It's \"quoted\"", '- starts with a dash', '123', 'true', 'null', '2024-01-01', '👋 Grüße 你好', ' padded ', `${'long words '.repeat(17)}end`, 'Tab\there and a line\nbreak'];

  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'rt', { languages: ['en', 'de'] });
    await createNode(s, 'rt', { slug: 'page' });
  });
  after(() => s.close());

  bodies.forEach(([name, bodyMd], i) => {
    test(`bodyMd round-trips exactly: ${name}`, async () => {
      await createNode(s, 'rt', { slug: `body-${i}` });
      const res = await put(s, 'rt', `body-${i}`, 'de', { title: `Body ${i}`, bodyMd });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.translation.bodyMd, bodyMd);
      assert.deepEqual(changesOf(s), [`A\trt/de/body-${i}.md`]);
      assert.equal(storedBody(s, `rt/de/body-${i}.md`), bodyMd);
      const read = await s.request('GET', `/versions/rt/topics/body-${i}/translations/de`);
      assert.equal(read.body.bodyMd, bodyMd);
      const list = await s.request('GET', '/versions/rt/nodes?include=bodies');
      const node = list.body.nodes.find((n: { slug: string }) => n.slug === `body-${i}`);
      assert.equal(node.translations.de.bodyMd, bodyMd);
      assert.equal(node.translations.de.bodyChars, bodyMd.length);
    });
  });

  titles.forEach((title, i) => {
    test(`title and summary round-trip exactly: ${JSON.stringify(title.slice(0, 30))}`, async () => {
      await createNode(s, 'rt', { slug: `title-${i}` });
      const summary = i % 2 === 0 ? `Summary of ${title}` : `line 1\nline 2: ${title}`;
      const res = await put(s, 'rt', `title-${i}`, 'de', { title, summary, bodyMd: 'b' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.translation.title, title);
      const read = await s.request('GET', `/versions/rt/topics/title-${i}/translations/de`);
      assert.equal(read.body.title, title);
      assert.equal(read.body.summary, summary);
    });
  });

  test('after a restart (read back from git) every bodyMd, title and summary is unchanged and the version is served', async () => {
    const before = await s.request('GET', '/versions/rt/nodes?include=bodies');
    assert.equal(before.status, 200);
    s = await s.restart();
    const afterRestart = await s.request('GET', '/versions/rt/nodes?include=bodies');
    assert.equal(afterRestart.status, 200, afterRestart.text);
    assert.deepEqual(afterRestart.body, before.body);
    for (const [i, [, bodyMd]] of bodies.entries()) {
      const read = await s.request('GET', `/versions/rt/topics/body-${i}/translations/de`);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.bodyMd, bodyMd);
    }
    for (const [i, title] of titles.entries()) {
      const read = await s.request('GET', `/versions/rt/topics/title-${i}/translations/de`);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.title, title);
    }
    s.git('fsck', '--strict');
  });
});

describe('Translations: title length is counted the same way on write and on reload', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'emoji', { languages: ['en', 'de'] });
    await createNode(s, 'emoji', { slug: 'page' });
  });
  after(() => s.close());

  test('a title the API accepts (200 emoji) is still served after a restart', async () => {
    const title = '😀'.repeat(200);
    const res = await put(s, 'emoji', 'page', 'de', { title, bodyMd: 'b' });
    assert.equal(res.status, 200, res.text);
    s = await s.restart();
    const read = await s.request('GET', '/versions/emoji/topics/page/translations/de');
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.title, title);
  });
});

describe('Translations: stamps strictly increase', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'ts', { languages: ['en', 'de'] });
    await createNode(s, 'ts', { slug: 'seq' });
  });
  after(() => s.close());

  test('PUTs issued back to back get strictly increasing stamps, each usable as the next expectedUpdatedAt', async () => {
    let previous = (await put(s, 'ts', 'seq', 'de', { title: 'v0' })).body.translation.updatedAt as string;
    const stamps = [previous];
    for (let i = 1; i <= 10; i++) {
      const res = await put(s, 'ts', 'seq', 'de', { title: `v${i}`, expectedUpdatedAt: previous });
      assert.equal(res.status, 200, `PUT ${i}: ${res.text}`);
      assert.ok(res.body.translation.updatedAt > previous, `${res.body.translation.updatedAt} > ${previous}`);
      previous = res.body.translation.updatedAt;
      stamps.push(previous);
    }
    assert.equal(new Set(stamps).size, stamps.length);
    assert.equal((await s.request('GET', '/versions/ts/topics/seq/translations/de')).body.updatedAt, previous);
  });

  test('two PUTs sent together get distinct stamps; the later commit has the later stamp and only it is current', async () => {
    const commits = s.commitCount();
    const [a, b] = await Promise.all([put(s, 'ts', 'seq', 'de', { title: 'A' }), put(s, 'ts', 'seq', 'de', { title: 'B' })]);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    assert.equal(s.commitCount(), commits + 2);
    const [sa, sb] = [a.body.translation.updatedAt as string, b.body.translation.updatedAt as string];
    assert.notEqual(sa, sb);
    const latest = sa > sb ? a : b;
    const read = await s.request('GET', '/versions/ts/topics/seq/translations/de');
    assert.equal(read.body.updatedAt, latest.body.translation.updatedAt);
    assert.equal(read.body.title, latest.body.translation.title);
    const older = sa > sb ? sb : sa;
    assertError(await put(s, 'ts', 'seq', 'de', { title: 'C', expectedUpdatedAt: older }), 409, 'stale_write');
    const next = await put(s, 'ts', 'seq', 'de', { title: 'C', expectedUpdatedAt: latest.body.translation.updatedAt });
    assert.equal(next.status, 200, next.text);
  });

  test('20 parallel PUTs to one translation all land, with distinct stamps that increase in commit order', async () => {
    const commits = s.commitCount();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => put(s, 'ts', 'seq', 'de', { title: `P${i}`, bodyMd: `parallel ${i}` })));
    for (const r of results) assert.equal(r.status, 200, r.text);
    assert.equal(s.commitCount(), commits + 20);
    const stamps = results.map((r) => r.body.translation.updatedAt as string);
    assert.equal(new Set(stamps).size, 20);
    // the stamps stored by the last 20 commits, oldest first
    const revs = s.git('rev-list', '--reverse', '-20', 'main').trim().split('\n');
    const stored = revs.map((rev) => JSON.parse(s.git('show', `${rev}:ts/.stamps/de.json`)).seq as string);
    assert.deepEqual([...stored].sort(), [...stamps].sort());
    for (let i = 1; i < stored.length; i++) assert.ok(stored[i] > stored[i - 1], `${stored[i]} > ${stored[i - 1]}`);
    const newest = stored[stored.length - 1];
    const read = await s.request('GET', '/versions/ts/topics/seq/translations/de');
    assert.equal(read.body.updatedAt, newest);
    const winner = results.find((r) => r.body.translation.updatedAt === newest)!;
    assert.equal(read.body.title, winner.body.translation.title);
    const next = await put(s, 'ts', 'seq', 'de', { title: 'after', expectedUpdatedAt: newest });
    assert.equal(next.status, 200, next.text);
  });

  test('20 parallel PUTs to different translations get distinct stamps, and each works as the next expectedUpdatedAt', async () => {
    for (let i = 0; i < 20; i++) await createNode(s, 'ts', { slug: `p-${i}` });
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => put(s, 'ts', `p-${i}`, 'de', { title: `Erst ${i}` })));
    for (const r of first) assert.equal(r.status, 200, r.text);
    const stamps = first.map((r) => r.body.translation.updatedAt as string);
    assert.equal(new Set(stamps).size, 20);
    const second = await Promise.all(
      Array.from({ length: 20 }, (_, i) => put(s, 'ts', `p-${i}`, 'de', { title: `Zweit ${i}`, expectedUpdatedAt: stamps[i] })),
    );
    for (const r of second) assert.equal(r.status, 200, r.text);
    second.forEach((r, i) => assert.ok(r.body.translation.updatedAt > stamps[i]));
    assert.equal(new Set([...stamps, ...second.map((r) => r.body.translation.updatedAt)]).size, 40);
  });
});

describe('Translations: DELETE /versions/{version}/topics/{slug}/translations/{lang}', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'dv', { languages: ['en', 'de', 'fr'] });
    await createNode(s, 'dv', { slug: 'doc', translations: { en: { title: 'Doc' }, de: { title: 'Dok' }, fr: { title: 'Doc-fr' } } });
  });
  after(() => s.close());

  test('deletes one translation: { ok: true, remainingLanguages }, one commit removing one file', async () => {
    const commits = s.commitCount();
    const res = await s.request('DELETE', '/versions/dv/topics/doc/translations/de');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.ok, true);
    assert.deepEqual([...res.body.remainingLanguages].sort(), ['en', 'fr']);
    assert.equal(s.commitCount(), commits + 1);
    assert.deepEqual(changesOf(s), ['D\tdv/de/doc.md']);
    const read = await s.request('GET', '/versions/dv/topics/doc/translations/de');
    assert.equal(assertError(read, 404, 'not_found').resource, 'translation');
    const topic = await s.request('GET', '/versions/dv/topics/doc?language=de');
    assert.equal(topic.body.fallback, true);
    assert.deepEqual([...topic.body.availableLanguages].sort(), ['en', 'fr']);
  });

  test('the primary language\'s translation cannot be deleted: 400 primary_language_required, no commit', async () => {
    const commits = s.commitCount();
    const res = await s.request('DELETE', '/versions/dv/topics/doc/translations/en');
    assertError(res, 400, 'primary_language_required');
    assert.equal(s.commitCount(), commits);
    assert.equal((await s.request('GET', '/versions/dv/topics/doc/translations/en')).status, 200);
  });

  test('a missing translation is 404 not_found (resource translation); an unknown node is 404 (resource node)', async () => {
    const commits = s.commitCount();
    const missing = await s.request('DELETE', '/versions/dv/topics/doc/translations/de');
    assert.equal(assertError(missing, 404, 'not_found').resource, 'translation');
    const node = await s.request('DELETE', '/versions/dv/topics/ghost/translations/fr');
    assert.equal(assertError(node, 404, 'not_found').resource, 'node');
    const version = await s.request('DELETE', '/versions/nope/topics/doc/translations/fr');
    assert.equal(assertError(version, 404, 'not_found').resource, 'version');
    assert.equal(s.commitCount(), commits);
  });

  test('a stale If-Unmodified-Since is 409 stale_write and keeps the translation', async () => {
    const old = (await s.request('GET', '/versions/dv/topics/doc/translations/fr')).body.updatedAt as string;
    await put(s, 'dv', 'doc', 'fr', { title: 'Doc-fr 2' });
    const commits = s.commitCount();
    const res = await s.request('DELETE', '/versions/dv/topics/doc/translations/fr', { headers: { 'if-unmodified-since': old } });
    assertError(res, 409, 'stale_write');
    assert.equal(s.commitCount(), commits);
    assert.equal((await s.request('GET', '/versions/dv/topics/doc/translations/fr')).body.title, 'Doc-fr 2');
  });

  test('the language in the path is canonicalized and the last non-primary translation can go', async () => {
    await createVersion(s, 'dpt', { languages: ['en', 'pt-BR'] });
    await createNode(s, 'dpt', { slug: 'doc', translations: { en: { title: 'Doc' }, 'pt-BR': { title: 'Documento' } } });
    const res = await s.request('DELETE', '/versions/dpt/topics/doc/translations/pt-br');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { ok: true, remainingLanguages: ['en'] });
    assert.deepEqual(changesOf(s), ['D\tdpt/pt-BR/doc.md']);
  });

  test('an invalid language in the path is 400 naming path/lang', async () => {
    const res = await s.request('DELETE', '/versions/dv/topics/doc/translations/not_a_lang');
    assert.equal(assertError(res, 400, 'validation_failed').field, 'path/lang');
  });
});
