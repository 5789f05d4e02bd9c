import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { messagesFor } from '../src/portal/i18n/messages.ts';
import { outdatedNotice } from '../src/portal/outdated-notice.ts';
import { Clients, content, toolError } from './helpers/mcp.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

// Outdated translations (docs/content-format.md#translations-and-their-base): each translation records
// the revision of the primary text it was brought in line with; a later primary change (not minor)
// makes it outdated, in reads, in the status report with its diff, in the tool server and the portal.

const EN_BODY = '## Download\n\nGet the installer.\n\n## Run\n\nRun it.\n';
const EN_CHANGED = '## Download\n\nGet the installer from the download page.\n\n## Run\n\nRun it.\n';

describe('Outdated translations', () => {
  let s: TestServer;
  const clients = new Clients(() => s);
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { languages: ['en', 'de', 'fr'] });
    await createNode(s, 'v1', { slug: 'install', translations: { en: { title: 'Install', bodyMd: EN_BODY }, de: { title: 'Installieren', bodyMd: '## Herunterladen\n\nLaden.\n' } } });
    await createNode(s, 'v1', { slug: 'faq', translations: { en: { title: 'FAQ', bodyMd: 'Questions.\n' }, de: { title: 'Fragen', bodyMd: 'Fragen.\n' } } });
  });
  after(async () => {
    await clients.closeAll();
    await s.close();
  });

  const topic = async (version: string, slug: string, language: string) => {
    const res = await s.request('GET', `/versions/${version}/topics/${slug}?language=${language}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const status = async (version: string, query = '') => {
    const res = await s.request('GET', `/versions/${version}/translation-status${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const outdatedIn = async (version: string, language = 'de') => (await status(version, `?lang=${language}`)).languages[0].outdated.map((o: { slug: string }) => o.slug);
  const fileAt = (path: string) => s.git('show', `HEAD:${path}`);
  const blobOf = (path: string) => s.git('rev-parse', `HEAD:${path}`).trim();

  test('a translation written with its primary is in line: no outdated field, and its file records the English file it is based on', async () => {
    const de = await topic('v1', 'install', 'de');
    assert.equal(de.outdated, undefined);
    assert.equal(de.primaryUpdatedAt, undefined);
    assert.match(fileAt('v1/de/install.md'), new RegExp(`^basedOn: "${blobOf('v1/en/install.md')}"$`, 'm'));
    // The primary's own file carries no base, and the stamps stay in .stamps/.
    assert.doesNotMatch(fileAt('v1/en/install.md'), /basedOn|updatedAt|minor/);
    assert.deepEqual(await outdatedIn('v1'), []);
  });

  test('a primary edit outdates the translation: topic, translation and node list reads say so with the primary\'s newer updatedAt', async () => {
    const res = await putTranslation(s, 'v1', 'install', 'en', { title: 'Install', bodyMd: EN_CHANGED });
    assert.equal(res.status, 200, res.text);
    const primaryUpdatedAt = res.body.translation.updatedAt;
    const de = await topic('v1', 'install', 'de');
    assert.equal(de.outdated, true);
    assert.equal(de.primaryUpdatedAt, primaryUpdatedAt);
    assert.ok(de.primaryUpdatedAt > de.updatedAt);
    const read = await s.request('GET', '/versions/v1/topics/install/translations/de');
    assert.equal(read.body.outdated, true);
    assert.equal(read.body.primaryUpdatedAt, primaryUpdatedAt);
    const en = await topic('v1', 'install', 'en');
    assert.equal(en.outdated, undefined, 'the primary is the reference, never outdated');
    const listed = (await s.request('GET', '/versions/v1/nodes')).body.nodes.find((n: { slug: string }) => n.slug === 'install');
    assert.equal(listed.translations.de.outdated, true);
    assert.equal(listed.translations.en.outdated, undefined);
    // The translation's file is left as it was: one file changes per edit.
    assert.match(s.git('show', '--stat', '--format=', 'HEAD'), /v1\/en\/install\.md/);
    assert.doesNotMatch(s.git('show', '--stat', '--format=', 'HEAD'), /v1\/de\/install\.md/);
    assert.deepEqual(await outdatedIn('v1'), ['install']);
  });

  test('a primary edit marked minor (PUT and PATCH) outdates nothing; the next edit that is not minor does', async () => {
    const put = await putTranslation(s, 'v1', 'faq', 'en', { title: 'FAQ', bodyMd: 'Questions, answered.\n', minorEdit: true });
    assert.equal(put.status, 200, put.text);
    assert.equal((await topic('v1', 'faq', 'de')).outdated, undefined);
    const patch = await s.request('PATCH', '/versions/v1/nodes/faq', { body: { translations: { en: { summary: 'Short answers' } }, minorEdit: true } });
    assert.equal(patch.status, 200, patch.text);
    assert.equal((await topic('v1', 'faq', 'de')).outdated, undefined);
    assert.deepEqual(await outdatedIn('v1'), ['install']);
    // After minor edits the English file says which text its translations are compared against.
    assert.match(fileAt('v1/en/faq.md'), /^basedOn: "[0-9a-f]{40}"$/m);
    const real = await s.request('PATCH', '/versions/v1/nodes/faq', { body: { translations: { en: { bodyMd: 'Questions and their answers.\n' } } } });
    assert.equal(real.status, 200, real.text);
    assert.equal((await topic('v1', 'faq', 'de')).outdated, true);
    assert.doesNotMatch(fileAt('v1/en/faq.md'), /basedOn/);
    assert.deepEqual(await outdatedIn('v1'), ['install', 'faq']);
  });

  test('the status report lists what is missing and what is outdated, with the primary\'s unified diff since the base', async () => {
    const body = await status('v1');
    assert.equal(body.primaryLanguage, 'en');
    assert.deepEqual(body.languages.map((l: { language: string }) => l.language), ['de', 'fr']);
    const [de, fr] = body.languages;
    assert.deepEqual(fr.missing, [
      { slug: 'install', kind: 'topic', primaryTitle: 'Install' },
      { slug: 'faq', kind: 'topic', primaryTitle: 'FAQ' },
    ]);
    assert.deepEqual(de.missing, []);
    assert.equal(de.translated, 2);
    const install = de.outdated.find((o: { slug: string }) => o.slug === 'install');
    assert.equal(install.title, 'Installieren');
    assert.equal(install.primaryRevision, blobOf('v1/en/install.md'));
    assert.match(install.diff, /^--- a\/v1\/en\/install\.md/m);
    assert.match(install.diff, /^\+\+\+ b\/v1\/en\/install\.md/m);
    assert.match(install.diff, /^-Get the installer\.$/m);
    assert.match(install.diff, /^\+Get the installer from the download page\.$/m);
    // The diff is of the text, not of the service's own lines.
    assert.doesNotMatch(install.diff, /basedOn/);
    const faq = de.outdated.find((o: { slug: string }) => o.slug === 'faq');
    assert.match(faq.diff, /^-Questions\.$/m);
    assert.match(faq.diff, /^\+summary: Short answers$/m, 'the minor edits since the base are part of what changed');
  });

  test('the status report needs a credential with help:read, and a language the version has', async () => {
    const anonymous = await s.request('GET', '/versions/v1/translation-status', { key: null });
    assert.equal(anonymous.status, 401);
    const writeOnly = await s.createKey({ name: 'write-only', scopes: 'help:write' });
    const refused = await s.request('GET', '/versions/v1/translation-status', { key: writeOnly });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'insufficient_scope');
    const unknown = await s.request('GET', '/versions/v1/translation-status?lang=ja');
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'language_not_enabled');
    const primary = await status('v1', '?lang=en');
    assert.deepEqual(primary.languages, [{ language: 'en', translated: 2, untracked: 0, missing: [], outdated: [] }]);
  });

  test('the diffs of one answer stay within their budget, and say why one is left out', async () => {
    await createNode(s, 'v1', { slug: 'big', translations: { en: { title: 'Big', bodyMd: 'a\n'.repeat(10) }, de: { title: 'Groß', bodyMd: 'b\n' } } });
    await putTranslation(s, 'v1', 'big', 'en', { title: 'Big', bodyMd: Array.from({ length: 6000 }, (_, i) => `line ${i} of a long page that changed everywhere\n`).join('') });
    const de = (await status('v1', '?lang=de')).languages[0];
    const big = de.outdated.find((o: { slug: string }) => o.slug === 'big');
    assert.equal(big.diff, null);
    assert.equal(big.diffOmitted, 'budget');
    const total = de.outdated.reduce((n: number, o: { diff: string | null }) => n + (o.diff?.length ?? 0), 0);
    assert.ok(total <= 200_000);
    await s.request('DELETE', '/versions/v1/nodes/big');
  });

  test('writing the translation brings it in line again', async () => {
    const res = await putTranslation(s, 'v1', 'install', 'de', { title: 'Installieren', bodyMd: '## Herunterladen\n\nVon der Download-Seite laden.\n' });
    assert.equal(res.status, 200, res.text);
    assert.equal((await topic('v1', 'install', 'de')).outdated, undefined);
    assert.match(fileAt('v1/de/install.md'), new RegExp(`^basedOn: "${blobOf('v1/en/install.md')}"$`, 'm'));
    assert.deepEqual(await outdatedIn('v1'), ['faq']);
  });

  test('a duplicated version keeps each translation\'s base', async () => {
    const res = await s.request('POST', '/versions/v1/duplicate', { body: { slug: 'v1-copy' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await outdatedIn('v1-copy'), ['faq']);
    assert.equal((await topic('v1-copy', 'faq', 'de')).outdated, true);
  });

  test('export and import carry the bases: the imported version is outdated where the exported one was', async () => {
    const exported = (await s.request('GET', '/versions/v1/export')).body;
    const faq = exported.nodes.find((n: { slug: string }) => n.slug === 'faq');
    assert.match(faq.translations.de.basedOn, /^[0-9a-f]{40}$/);
    await createVersion(s, 'v2', { languages: ['en', 'de', 'fr'] });
    const res = await s.request('POST', '/versions/v2/import', { body: { mode: 'replace', nodes: exported.nodes } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await outdatedIn('v2'), ['faq']);
    assert.equal((await topic('v2', 'install', 'de')).outdated, undefined);
    // The base's text is in this repository: the diff is there too.
    assert.match((await status('v2', '?lang=de')).languages[0].outdated[0].diff, /^\+Questions and their answers\.$/m);
  });

  test('content files carry the bases in front matter: import-files keeps them, and minor: true in a primary file outdates nothing', async () => {
    const files = (await s.request('GET', '/versions/v1/export?format=files')).body.files as Array<{ path: string; content: string }>;
    assert.match(files.find((f) => f.path === 'de/faq.md')!.content, /^basedOn: "[0-9a-f]{40}"$/m);
    const imported = await s.request('POST', '/versions/v3/import-files', { body: { files } });
    assert.equal(imported.status, 200, imported.text);
    assert.deepEqual(await outdatedIn('v3'), ['faq']);

    const edit = (path: string, change: (text: string) => string) => files.map((f) => (f.path === path ? { ...f, content: change(f.content) } : f));
    // A typo fixed in English, said to be minor: the German page stays in line.
    const minor = edit('en/install.md', (t) => t.replace('title: Install\n', 'title: Install\nminor: true\n').replace('download page', 'downloads page'));
    const res = await s.request('POST', '/versions/v3/import-files', { body: { files: minor } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.warnings.filter((w: { path: string }) => w.path !== 'version.json'), [], 'minor is a key of the format, not an unknown one');
    assert.deepEqual(await outdatedIn('v3'), ['faq']);
    assert.doesNotMatch(fileAt('v3/en/install.md'), /minor/, 'the mark is about one change and is not stored');
    assert.match(fileAt('v3/en/install.md'), /downloads page/);
    // The same change without the mark outdates it.
    const real = edit('en/install.md', (t) => t.replace('download page', 'download site'));
    await s.request('POST', '/versions/v3/import-files', { body: { files: real } });
    assert.deepEqual(await outdatedIn('v3'), ['install', 'faq']);
    // A translation file changed in the same push is brought in line with it.
    const both = edit('de/faq.md', (t) => t.replace('Fragen.', 'Fragen und Antworten.'));
    await s.request('POST', '/versions/v3/import-files', { body: { files: both.map((f) => (f.path === 'en/install.md' ? real.find((r) => r.path === f.path)! : f)) } });
    assert.deepEqual(await outdatedIn('v3'), ['install']);
  });

  test('the bases survive a restart, from the snapshots and from git alone', async () => {
    s = await s.restart();
    assert.deepEqual(await outdatedIn('v1'), ['faq']);
    assert.equal((await topic('v3', 'install', 'de')).outdated, true);
    s = await s.restart();
    rmSync(join(s.dataDir, 'snapshots'), { recursive: true, force: true });
    s = await s.restart();
    assert.deepEqual(await outdatedIn('v1'), ['faq']);
    assert.deepEqual(await outdatedIn('v3'), ['install']);
  });

  test('the tool server\'s get_translation_status answers the same list, and needs help:read', async () => {
    const client = await clients.connect(s.key);
    const listed = (await client.listTools()).tools.find((t) => t.name === 'get_translation_status');
    assert.ok(listed, 'the tool is listed');
    assert.deepEqual(Object.keys((listed.inputSchema as { properties: object }).properties).sort(), ['language', 'version']);
    const answer = content(await client.callTool({ name: 'get_translation_status', arguments: { version: 'v1', language: 'de' } }));
    assert.deepEqual(answer.languages[0].outdated.map((o: { slug: string }) => o.slug), ['faq']);
    assert.match(answer.languages[0].outdated[0].diff, /^\+Questions and their answers\.$/m);
    const anonymous = await clients.connect(null);
    toolError(await anonymous.callTool({ name: 'get_translation_status', arguments: { version: 'v1' } }), 'unauthorized');
  });

  test('the portal shows the notice on an outdated page only', async () => {
    const page = async (path: string) => {
      const res = await fetch(new URL(path, s.url));
      assert.equal(res.status, 200, path);
      return res.text();
    };
    assert.match(await page('/support/v3/install?lang=de'), /<p class="notice outdated" role="note">Die Seite auf Englisch wurde geändert, seit diese Übersetzung entstand\.<\/p>/);
    assert.doesNotMatch(await page('/support/v3/faq?lang=de'), /notice outdated/);
    assert.doesNotMatch(await page('/support/v3/install?lang=en'), /notice outdated/);
  });

  test('the portal\'s notice on an outdated page names the primary language in the reader\'s language', () => {
    assert.equal(outdatedNotice({}, 'en', 'de', messagesFor('de')), '');
    const de = String(outdatedNotice({ outdated: true }, 'en', 'de', messagesFor('de')));
    assert.equal(de, '<p class="notice outdated" role="note">Die Seite auf Englisch wurde geändert, seit diese Übersetzung entstand.</p>');
    const en = String(outdatedNotice({ outdated: true }, 'en', 'en', messagesFor('en')));
    assert.match(en, /The English page has changed since this translation was written\./);
  });
});
