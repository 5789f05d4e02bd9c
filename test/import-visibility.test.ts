import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { md, versionJson } from './helpers/content.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

// An import of a whole version has its search indexes built while its commit is made durable, and
// shown only once it is: a search right after the answer finds the imported text, and an import
// whose commit fails leaves nothing of it to find.

const TOPICS = 80;

/** A word of letters only, one per topic and round, found nowhere else (and far from every other: ranked search forgives a typo). */
function word(round: string, i: number): string {
  let seed = [...`${round}${i}`].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  let out = round;
  for (let k = 0; k < 9; k++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    out += String.fromCharCode(97 + ((seed >>> 16) % 26));
  }
  return out;
}

/** A version of TOPICS topics, about 1,600 characters each (more than a write indexes at once), each with its own word. */
function versionFiles(round: string) {
  const slugs = Array.from({ length: TOPICS }, (_, i) => `topic-${i}`);
  const filler = 'Open the settings page, choose a language and save the profile before you go on. '.repeat(18);
  return [
    { path: 'version.json', content: versionJson({ label: `Round ${round}`, languages: ['en'], nav: slugs }) },
    ...slugs.map((slug, i) => ({ path: `en/${slug}.md`, content: md(`Topic ${i}`, `## Steps\n\n${filler}\n\nThe ${word(round, i)} step comes last.\n`) })),
  ];
}

/** The slugs a search of the version finds, in the default order and ranked; null when the version is not there. */
async function found(s: TestServer, version: string, q: string): Promise<{ plain: string[]; ranked: string[] } | null> {
  const plain = await s.request('GET', `/versions/${version}/search?q=${encodeURIComponent(q)}`);
  const ranked = await s.request('GET', `/versions/${version}/search?q=${encodeURIComponent(q)}&order=relevance`);
  if (plain.status === 404 && ranked.status === 404) return null;
  assert.equal(plain.status, 200, plain.text);
  assert.equal(ranked.status, 200, ranked.text);
  return { plain: plain.body.hits.map((h: { slug: string }) => h.slug), ranked: ranked.body.hits.map((h: { slug: string }) => h.slug) };
}

/** Each of a few topics' words of `round` finds that topic alone. */
async function assertFindsRound(s: TestServer, version: string, round: string): Promise<void> {
  for (const i of [0, 1, TOPICS / 2, TOPICS - 1]) assert.deepEqual(await found(s, version, word(round, i)), { plain: [`topic-${i}`], ranked: [`topic-${i}`] }, `${version}: ${word(round, i)}`);
}

async function assertFindsNothingOf(s: TestServer, version: string, round: string): Promise<void> {
  for (const i of [0, TOPICS - 1]) assert.deepEqual(await found(s, version, word(round, i)), { plain: [], ranked: [] }, `${version}: ${word(round, i)}`);
}

/** Runs `fn` while objects/pack/ is a file: a commit's staged pack cannot be moved in, and the commit fails. */
async function withPacksBlocked<T>(s: TestServer, fn: () => Promise<T>): Promise<T> {
  const packs = join(s.gitdir, 'objects', 'pack');
  renameSync(packs, `${packs}.away`);
  writeFileSync(packs, 'not a folder');
  try {
    return await fn();
  } finally {
    rmSync(packs);
    renameSync(`${packs}.away`, packs);
  }
}

describe('Imports of whole versions: searchable once answered, and only then', () => {
  let s: TestServer;
  const importFiles = (version: string, round: string) => s.request('POST', `/versions/${version}/import-files`, { body: { files: versionFiles(round) } });
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1');
    await createNode(s, 'v1', { slug: 'a', translations: { en: { title: 'Alpha', bodyMd: 'The original walrus text.\n' } } });
  });
  after(() => s.close());

  test('a search right after an import of a new version is answered finds its topics, in both orders', async () => {
    const res = await importFiles('big', 'ka');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.summary.created, TOPICS);
    await assertFindsRound(s, 'big', 'ka');
  });

  test('a search right after the version is imported again finds the new text and no longer the old', async () => {
    const res = await importFiles('big', 'mo');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.summary.updated, TOPICS);
    await assertFindsRound(s, 'big', 'mo');
    await assertFindsNothingOf(s, 'big', 'ka');
  });

  test('an import whose commit fails leaves no trace in search, new version or not', async () => {
    const commits = s.commitCount();
    const failed = await withPacksBlocked(s, () => importFiles('lost', 'pu'));
    assert.equal(failed.status, 503, failed.text);
    assert.equal(failed.body.error.code, 'storage_failed');
    assert.equal((await s.request('GET', '/versions/lost')).status, 404);
    assert.equal(await found(s, 'lost', word('pu', 0)), null);
    const again = await withPacksBlocked(s, () => importFiles('big', 'ru'));
    assert.equal(again.status, 503, again.text);
    await assertFindsRound(s, 'big', 'mo');
    await assertFindsNothingOf(s, 'big', 'ru');
    assert.equal(s.commitCount(), commits);
    // What the failed imports prepared is not kept: the same imports, sent again, are found as sent.
    assert.equal((await importFiles('lost', 'pu')).status, 200);
    await assertFindsRound(s, 'lost', 'pu');
    assert.equal((await importFiles('big', 'ru')).status, 200);
    await assertFindsRound(s, 'big', 'ru');
    await assertFindsNothingOf(s, 'big', 'mo');
    execFileSync('git', ['fsck', '--strict', '--no-progress'], { cwd: s.gitdir, stdio: 'pipe' });
  });

  test('writes to another version while an import runs are each searchable when answered', async () => {
    const writes = (async () => {
      const answers = [];
      for (const animal of ['pelican', 'narwhal', 'ibis', 'quokka']) {
        const put = await putTranslation(s, 'v1', 'a', 'en', { title: 'Alpha', bodyMd: `The ${animal} text.\n` });
        assert.equal(put.status, 200, put.text);
        answers.push(await found(s, 'v1', animal));
      }
      return answers;
    })();
    const [imported, answers] = await Promise.all([importFiles('side', 'vi'), writes]);
    assert.equal(imported.status, 200, imported.text);
    for (const answer of answers) assert.deepEqual(answer, { plain: ['a'], ranked: ['a'] });
    await assertFindsRound(s, 'side', 'vi');
    await assertFindsNothingOf(s, 'v1', 'vi');
  });
});
