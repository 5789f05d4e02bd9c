import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

// The portal's pages that show no topic speak the reader's language too: the 410 page of a removed
// topic, the page of a refused feedback post or result link, and a version's start page whose cards
// fell back to another language mark that language.

describe('Portal pages without a topic, in the reader\'s language', () => {
  let s: TestServer;
  let origin: string;
  const page = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${origin}${path}`, { redirect: 'manual', signal: AbortSignal.timeout(10_000), ...init });
    return { status: res.status, html: await res.text() };
  };
  const postForm = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    page(`/support${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin, ...headers }, body: new URLSearchParams(fields).toString() });

  before(async () => {
    s = await startTestServer();
    origin = new URL(s.url).origin;
    await createVersion(s, 'v1', { status: 'published', isLatest: true, label: 'Version 1', languages: ['en', 'de', 'ar'] });
    await createNode(s, 'v1', { slug: 'guide', kind: 'section', translations: { en: { title: 'Guide', summary: 'Getting going' }, de: { title: 'Anleitung', summary: 'Loslegen' } } });
    await createNode(s, 'v1', { slug: 'install', parentSlug: 'guide', translations: { en: { title: 'Install', bodyMd: 'Text.\n' }, ar: { title: 'التثبيت', bodyMd: 'نص.\n' } } });
    await createNode(s, 'v1', { slug: 'retired', translations: { en: { title: 'Retired', bodyMd: 'Old.\n' } } });
    assert.equal((await s.request('DELETE', '/versions/v1/nodes/retired')).status, 200);
  });
  after(() => s.close());

  test('a removed topic\'s 410 page is in the language asked for, with links that keep it; else in the primary language', async () => {
    const de = await page('/support/v1/retired?lang=de');
    assert.equal(de.status, 410);
    assert.match(de.html, /<html lang="de" dir="ltr">/);
    assert.match(de.html, /<h1>Diese Seite wurde entfernt<\/h1><p>Die gesuchte Seite gehört nicht mehr zu Version 1\./);
    assert.match(de.html, /<a href="\/support\/v1\?lang=de">Zum Anfang von Version 1<\/a>/);
    assert.match(de.html, /<a href="\/support\/v1\/search\?lang=de">Die Hilfe durchsuchen<\/a>/);
    const ar = await page('/support/v1/retired?lang=ar');
    assert.match(ar.html, /<html lang="ar" dir="rtl">/);
    assert.match(ar.html, /<h1>أُزيلت هذه الصفحة<\/h1>/);
    // A language the version lacks, or none: the primary language, English.
    for (const path of ['/support/v1/retired?lang=fr', '/support/v1/retired']) {
      const en = await page(path);
      assert.equal(en.status, 410, path);
      assert.match(en.html, /<html lang="en" dir="ltr">[\s\S]*<h1>This page was removed<\/h1>/, path);
      assert.match(en.html, /<a href="\/support\/v1">Go to the start of Version 1<\/a>/, path);
    }
  });

  test('a refused feedback post says so in the form\'s language, with the service\'s detail beside it', async () => {
    const de = await postForm('/v1/install/feedback', { lang: 'de', comment: 'hm' });
    assert.equal(de.status, 400);
    assert.match(de.html, /<html lang="de" dir="ltr">/);
    assert.match(de.html, /<h1>Nicht gespeichert<\/h1><p role="alert">Wählen Sie eine der beiden Antworten, Ja oder Nein\.<\/p><p class="detail" lang="en" dir="ltr">form\/helpful must be yes or no/);
    assert.match(de.html, /<a href="[^"]*">Zurück<\/a>/);
    const ar = await postForm('/v1/install/feedback', { lang: 'ar', helpful: 'no', comment: 'x'.repeat(1001) });
    assert.equal(ar.status, 400);
    assert.match(ar.html, /<html lang="ar" dir="rtl">[\s\S]*<h1>لم يُسجَّل<\/h1><p role="alert">التعليق طويل جدًا\.<\/p>/);
    // Refused before the form is read (another site's page): the version's primary language.
    const other = await postForm('/v1/install/feedback', { lang: 'de', helpful: 'no' }, { origin: 'https://elsewhere.example' });
    assert.equal(other.status, 403);
    assert.match(other.html, /<html lang="en" dir="ltr">[\s\S]*<h1>Not recorded<\/h1><p role="alert">Feedback is taken from this help’s own pages only\.<\/p>/);
  });

  test('a result link to no page is a 404 page in the language of the results', async () => {
    const de = await page('/support/v1/_open?q=x&to=nowhere&lang=de');
    assert.equal(de.status, 404);
    assert.match(de.html, /<html lang="de" dir="ltr">[\s\S]*<h1>Seite nicht gefunden<\/h1><p role="alert">Unter dieser Adresse gibt es keine veröffentlichte Seite\./);
    assert.doesNotMatch(de.html, /class="detail"/);
  });

  test('a version\'s start page marks the cards and topics that fell back to another language with their lang and dir', async () => {
    const ar = (await page('/support/v1?lang=ar')).html;
    assert.match(ar, /<html lang="ar" dir="rtl">/);
    // The section has no Arabic: its title and summary are English, and say so.
    assert.match(ar, /<li class="card section">\s*<h3 lang="en" dir="ltr"><a href="\/support\/v1\/guide\?lang=ar">Guide<\/a><\/h3>\s*<p class="summary" lang="en" dir="ltr">Getting going<\/p>/);
    // Its topic has Arabic: nothing to mark.
    assert.match(ar, /<ul class="card-topics"><li><a href="\/support\/v1\/install\?lang=ar">التثبيت<\/a><\/li><\/ul>/);
    const de = (await page('/support/v1?lang=de')).html;
    assert.match(de, /<h3><a href="\/support\/v1\/guide\?lang=de">Anleitung<\/a><\/h3>\s*<p class="summary">Loslegen<\/p>/);
    assert.match(de, /<ul class="card-topics"><li lang="en" dir="ltr"><a href="\/support\/v1\/install\?lang=de">Install<\/a><\/li><\/ul>/);
  });
});
