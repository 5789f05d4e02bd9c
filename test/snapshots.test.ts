import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { KeyFile } from '../src/auth/key-file.ts';
import { createKey } from '../src/cli/keys.ts';
import { loadConfig } from '../src/config.ts';
import { startService, type RunningService } from '../src/service.ts';
import { md, versionJson } from './helpers/content.ts';
import { commitWithGit } from './helpers/git.ts';

/** A real server on a data directory, with its log lines kept (they say how each version was loaded). */
interface Run {
  service: RunningService;
  logs: Array<Record<string, any>>;
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

const keys = new Map<string, string>();

async function start(dataDir: string): Promise<Run> {
  if (!keys.has(dataDir)) keys.set(dataDir, (await createKey(new KeyFile(dataDir), { name: 'writer' })).key);
  const logs: Array<Record<string, any>> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const config = loadConfig({}, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null });
  // A long quiet period: in these tests snapshots are written after a load from git and on close only.
  const service = await startService(config, log, { snapshotQuietMs: 60_000 });
  await service.ready;
  return {
    service,
    logs,
    request: async (method, path, body) => {
      const res = await fetch(`${service.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${keys.get(dataDir)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
    },
  };
}

/** The tree a version's snapshot was last taken of, from its pointer (`snapshots/<slug>.tree`). */
const pointerOf = (dataDir: string, slug: string) => readFileSync(join(dataDir, 'snapshots', `${slug}.tree`), 'utf8').trim();
const treeSnapshot = (dataDir: string, tree: string) => join(dataDir, 'snapshots', `${tree}.snapshot`);
const snapshotOf = (dataDir: string, slug: string) => treeSnapshot(dataDir, pointerOf(dataDir, slug));
/** The snapshot files on disk (one per tree), by tree id. */
const snapshotFiles = (dataDir: string) =>
  readdirSync(join(dataDir, 'snapshots'))
    .filter((n) => n.endsWith('.snapshot'))
    .map((n) => n.slice(0, -'.snapshot'.length))
    .sort();
const messages = (run: Run, version: string) => run.logs.filter((l) => l.version === version).map((l) => l.msg as string);

async function ok(run: Run, method: string, path: string, body?: unknown) {
  const res = await run.request(method, path, body);
  assert.ok(res.status === 200 || res.status === 201 || res.status === 204, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** What a user sees of a version: its export, and the hits of a few searches. */
async function view(run: Run, version: string, queries: string[]) {
  const exported = await ok(run, 'GET', `/versions/${version}/export`);
  const searches: Record<string, unknown> = {};
  for (const q of queries) {
    searches[q] = (await ok(run, 'GET', `/versions/${version}/search?q=${encodeURIComponent(q)}&lang=en`)).hits;
    // The ranking's index is in the snapshot too: the same ranks, scores and snippets, typos and stems included.
    const ranked = await ok(run, 'GET', `/versions/${version}/search?q=${encodeURIComponent(q)}&lang=en&order=relevance&limit=50`);
    searches[`relevance: ${q}`] = { hits: ranked.hits, total: ranked.total, suggestion: ranked.suggestion };
  }
  return { exported, searches };
}

async function writeSome(run: Run, version: string, words: string[]) {
  for (const [i, word] of words.entries()) {
    await ok(run, 'POST', `/versions/${version}/nodes`, { slug: `topic-${word}`, kind: 'topic', translations: { en: { title: `About ${word}`, bodyMd: `The ${word} paragraph number ${i}.\n` }, de: { title: `Über ${word}`, bodyMd: `Absatz ${word}.\n` } } });
  }
}

describe('Snapshots of the index', () => {
  test('every body comes back exactly: Latin-1, Japanese, emoji (beyond the BMP), empty, and many in one part', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    let run = await start(dataDir);
    try {
      await ok(run, 'POST', '/versions', { slug: 'mix', label: 'Mix', languages: ['en', 'ja', 'de'] });
      const bodies: Array<Record<string, string>> = [
        { en: 'Plain ASCII.\n', ja: '日本語の本文です。\n', de: 'Größe, Straße, Übersicht: ÿ and þ fit in Latin-1.\n' },
        { en: '', ja: 'カタカナとひらがな 🎉 and an emoji beyond the BMP 𠮷.\n', de: '€ is not Latin-1.\n' },
        { en: 'Line one\r\nline two\u0000 with a NUL and \t tab.\n', ja: '', de: 'ß' },
      ];
      for (let i = 0; i < 300; i++) {
        const b = bodies[i % bodies.length];
        const translations: Record<string, { title: string; bodyMd: string }> = {};
        for (const [lang, body] of Object.entries(b)) translations[lang] = { title: `T${i} ${lang}`, bodyMd: `${body}${i % 7 === 0 ? body.repeat(50) : ''}` };
        await ok(run, 'POST', '/versions/mix/nodes', { slug: `n${i}`, kind: 'topic', translations });
      }
      const before = await ok(run, 'GET', '/versions/mix/export');
      await run.service.close();
      run = await start(dataDir);
      assert.deepEqual(messages(run, 'mix'), [], 'restored: not read from git');
      assert.deepEqual(await ok(run, 'GET', '/versions/mix/export'), before);
      assert.equal(before.nodes.length, 300);
    } finally {
      await run.service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('large bodies come back exactly: longer than the writer encodes at once, and many that fill it several times', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    let run = await start(dataDir);
    try {
      await ok(run, 'POST', '/versions', { slug: 'big', label: 'Big', languages: ['en', 'ja'] });
      const latin1 = (n: number, seed: number) => `Größe ${seed} `.repeat(Math.ceil(n / 10)).slice(0, n);
      const wide = (n: number, seed: number) => `日本語${seed}の本文 `.repeat(Math.ceil(n / 8)).slice(0, n);
      const sizes = [1_500_000, 700_000, 700_000, 300_000, 10, 700_000];
      for (const [i, size] of sizes.entries()) {
        await ok(run, 'POST', '/versions/big/nodes', {
          slug: `b${i}`,
          kind: 'topic',
          translations: { en: { title: `B${i}`, bodyMd: latin1(size, i) }, ja: { title: `B${i}`, bodyMd: wide(Math.floor(size / 2), i) } },
        });
      }
      const before = await ok(run, 'GET', '/versions/big/export');
      await run.service.close();
      run = await start(dataDir);
      assert.deepEqual(messages(run, 'big'), [], 'restored: not read from git');
      assert.deepEqual(await ok(run, 'GET', '/versions/big/export'), before);
    } finally {
      await run.service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('without the git command the start reads trees and files through isomorphic-git, and writes go on', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    let run = await start(dataDir);
    const path = process.env.PATH;
    let emptyPath: string | null = null;
    try {
      await ok(run, 'POST', '/versions', { slug: 'nogit', label: 'No git', languages: ['en', 'de'] });
      await writeSome(run, 'nogit', ['alpha', 'bravo']);
      const before = await view(run, 'nogit', ['alpha', 'paragraph']);
      await run.service.close();
      rmSync(join(dataDir, 'snapshots'), { recursive: true, force: true });
      emptyPath = mkdtempSync(join(tmpdir(), 'help-empty-path-'));
      process.env.PATH = emptyPath;
      run = await start(dataDir);
      assert.deepEqual(messages(run, 'nogit'), ['version read from git']);
      assert.deepEqual(await view(run, 'nogit', ['alpha', 'paragraph']), before);
      await writeSome(run, 'nogit', ['charlie']);
      assert.equal((await ok(run, 'GET', '/versions/nogit/search?q=charlie&lang=en')).hits.length, 1);
    } finally {
      process.env.PATH = path;
      await run.service.close();
      if (emptyPath !== null) rmSync(emptyPath, { recursive: true, force: true });
    }
    try {
      assert.match(execFileSync('git', ['--git-dir', join(dataDir, 'content.git'), 'log', '-1', '--format=%s'], { encoding: 'utf8' }), /charlie/);
      execFileSync('git', ['--git-dir', join(dataDir, 'content.git'), 'fsck', '--strict'], { stdio: 'pipe' });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a restart after writes restores from the snapshot and serves the same reads and searches', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    let run = await start(dataDir);
    try {
      await ok(run, 'POST', '/versions', { slug: 'v1', label: 'One', languages: ['en', 'de'] });
      await writeSome(run, 'v1', ['alpha', 'bravo', 'charlie']);
      await ok(run, 'PUT', '/versions/v1/topics/topic-bravo/translations/en', { title: 'About bravo', bodyMd: 'Rewritten with delta words.\n' });
      const queries = ['alpha', 'delta words', 'paragraph', 'bravo', 'paragrahp', 'paragraphs', 'alhpa'];
      const before = await view(run, 'v1', queries);
      await run.service.close();
      assert.ok(existsSync(snapshotOf(dataDir, 'v1')), 'close writes the snapshot');

      run = await start(dataDir);
      assert.deepEqual(messages(run, 'v1'), [], 'restored: not read from git');
      assert.deepEqual(await view(run, 'v1', queries), before);
      assert.equal((before.searches['delta words'] as unknown[]).length, 1);

      // Writes go on from the restored state, and the next start sees them.
      await ok(run, 'PUT', '/versions/v1/topics/topic-alpha/translations/en', { title: 'About alpha', bodyMd: 'Now about echo.\n' });
      const after = await view(run, 'v1', ['echo', 'alpha']);
      await run.service.close();
      run = await start(dataDir);
      assert.deepEqual(await view(run, 'v1', ['echo', 'alpha']), after);
      assert.equal((after.searches.echo as unknown[]).length, 1);
    } finally {
      await run.service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('stamps come back to the millisecond from git and from snapshots, and expectedUpdatedAt refuses a stale write after either start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    let run = await start(dataDir);
    try {
      await ok(run, 'POST', '/versions', { slug: 'v1', label: 'One', languages: ['en', 'de'] });
      await writeSome(run, 'v1', ['alpha', 'bravo']);
      const first = (await ok(run, 'PUT', '/versions/v1/topics/topic-alpha/translations/en', { title: 'About alpha', bodyMd: 'First edit.\n' })).translation.updatedAt as string;
      const second = (await ok(run, 'PUT', '/versions/v1/topics/topic-alpha/translations/en', { title: 'About alpha', bodyMd: 'Second edit.\n', expectedUpdatedAt: first })).translation.updatedAt as string;
      assert.ok(second > first);
      const node = (await ok(run, 'PATCH', '/versions/v1/nodes/topic-bravo', { icon: 'rocket' })).updatedAt as string;
      const version = (await ok(run, 'PATCH', '/versions/v1', { label: 'One, relabelled' })).updatedAt as string;
      const before = await ok(run, 'GET', '/versions/v1/nodes');
      await run.service.close();

      for (const from of ['snapshots', 'git']) {
        if (from === 'git') rmSync(join(dataDir, 'snapshots'), { recursive: true, force: true });
        run = await start(dataDir);
        assert.deepEqual(messages(run, 'v1'), from === 'git' ? ['version read from git'] : [], from);
        assert.deepEqual(await ok(run, 'GET', '/versions/v1/nodes'), before, `every stamp as it was, from ${from}`);
        assert.equal((await ok(run, 'GET', '/versions/v1')).updatedAt, version, from);
        const stale = await run.request('PUT', '/versions/v1/topics/topic-alpha/translations/en', { title: 'About alpha', bodyMd: 'Lost update.\n', expectedUpdatedAt: first });
        assert.equal(stale.status, 409, `${from}: ${JSON.stringify(stale.body)}`);
        assert.equal(stale.body.error.code, 'stale_write');
        assert.equal(stale.body.error.currentUpdatedAt, second);
        // One millisecond before the stamp is stale too: the stamp kept its milliseconds.
        const justBefore = new Date(Date.parse(node) - 1).toISOString();
        assert.equal((await run.request('PATCH', '/versions/v1/nodes/topic-bravo', { icon: 'users', expectedUpdatedAt: justBefore })).status, 409, from);
        assert.equal((await run.request('PATCH', '/versions/v1', { label: 'Stale', expectedUpdatedAt: new Date(Date.parse(version) - 1).toISOString() })).status, 409, from);
        const header = await fetch(`${run.service.url}/versions/v1/topics/topic-alpha/translations/en`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${keys.get(dataDir)}`, 'content-type': 'application/json', 'if-unmodified-since': first },
          body: JSON.stringify({ title: 'About alpha', bodyMd: 'Lost update.\n' }),
        });
        assert.equal(header.status, 409, `${from}: If-Unmodified-Since`);
        await run.service.close();
      }
      run = await start(dataDir);
    } finally {
      await run.service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a truncated or damaged snapshot is ignored (logged), the version is read from git and the snapshot rewritten', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    let run = await start(dataDir);
    try {
      await ok(run, 'POST', '/versions', { slug: 'v1', label: 'One', languages: ['en', 'de'] });
      await writeSome(run, 'v1', ['alpha', 'bravo']);
      const queries = ['alpha', 'paragraph'];
      const before = await view(run, 'v1', queries);
      await run.service.close();
      const file = snapshotOf(dataDir, 'v1');
      const good = readFileSync(file);

      for (const damage of [() => truncateSync(file, Math.floor(good.length / 2)), () => flipByte(file, Math.floor(good.length / 3)), () => writeFileSync(file, '')]) {
        writeFileSync(file, good);
        damage();
        run = await start(dataDir);
        const seen = messages(run, 'v1');
        assert.ok(seen.includes('snapshot ignored; reading the version from git'), seen.join(', '));
        assert.ok(seen.includes('version read from git'), seen.join(', '));
        assert.deepEqual(await view(run, 'v1', queries), before);
        await run.service.close();
        run = await start(dataDir);
        assert.deepEqual(messages(run, 'v1'), [], 'the snapshot was written again and is used');
        assert.deepEqual(await view(run, 'v1', queries), before);
        await run.service.close();
      }
    } finally {
      await run.service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a snapshot of an older tree is patched with only the files changed since', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    let run = await start(dataDir);
    try {
      await ok(run, 'POST', '/versions', { slug: 'v1', label: 'One', languages: ['en', 'de'] });
      await writeSome(run, 'v1', ['alpha', 'bravo', 'charlie', 'delta', 'foxtrot']);
      await run.service.close();
      const older = join(dataDir, 'older.snapshot');
      const olderTree = pointerOf(dataDir, 'v1');
      copyFileSync(snapshotOf(dataDir, 'v1'), older);

      run = await start(dataDir);
      await ok(run, 'PUT', '/versions/v1/topics/topic-bravo/translations/en', { title: 'About bravo', bodyMd: 'Now it speaks of golf.\n' });
      await writeSome(run, 'v1', ['hotel']);
      await ok(run, 'DELETE', '/versions/v1/nodes/topic-charlie');
      const queries = ['golf', 'bravo', 'charlie', 'hotel', 'paragraph'];
      const expected = await view(run, 'v1', queries);
      await run.service.close();
      assert.ok(!existsSync(treeSnapshot(dataDir, olderTree)), 'the older snapshot was removed once the newer one was written');
      // As after a crash before the newer snapshot was written: only the older one is on disk, and the pointer names it.
      rmSync(snapshotOf(dataDir, 'v1'));
      copyFileSync(older, treeSnapshot(dataDir, olderTree));
      writeFileSync(join(dataDir, 'snapshots', 'v1.tree'), `${olderTree}\n`);

      run = await start(dataDir);
      const patched = run.logs.find((l) => l.version === 'v1' && l.msg === 'version patched from an older snapshot');
      assert.ok(patched, messages(run, 'v1').join(', '));
      // version.json, bravo's English file and hotel's two files, and the three (small) stamps files; not the 14 files of the version.
      assert.equal(patched.filesRead, 7);
      assert.deepEqual(await view(run, 'v1', queries), expected);
      assert.equal((expected.searches.golf as unknown[]).length, 1);
      assert.equal((expected.searches.charlie as unknown[]).length, 0);
      await run.service.close();
      run = await start(dataDir);
      assert.deepEqual(messages(run, 'v1'), [], 'the patched state was snapshotted');
      assert.deepEqual(await view(run, 'v1', queries), expected);
    } finally {
      await run.service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('identical folders (a version copied for each release) are loaded once, each with its own ids, and stay apart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    const gitdir = join(dataDir, 'content.git');
    let run = await start(dataDir);
    try {
      await run.service.close();
      commitWithGit(gitdir, { ...releaseFolder('r1'), ...releaseFolder('r2'), ...releaseFolder('r3') }, 'three identical releases by hand');
      const seen = async () => {
        const out: Record<string, unknown> = {};
        for (const v of ['r1', 'r2', 'r3']) {
          const topic = await ok(run, 'GET', `/versions/${v}/topics/intro`);
          out[v] = { id: topic.id, version: topic.version, hits: (await ok(run, 'GET', `/versions/${v}/search?q=zebras&lang=en`)).hits.length };
        }
        return out;
      };
      for (const from of ['git', 'snapshots', 'git again']) {
        if (from === 'git again') rmSync(join(dataDir, 'snapshots'), { recursive: true, force: true });
        run = await start(dataDir);
        const now = (await seen()) as Record<string, { id: string; version: string; hits: number }>;
        assert.deepEqual(Object.values(now).map((t) => [t.version, t.hits]), [['r1', 1], ['r2', 1], ['r3', 1]], from);
        assert.equal(new Set(Object.values(now).map((t) => t.id)).size, 3, `${from}: each version derives its own node ids`);
        await run.service.close();
      }
      run = await start(dataDir);
      const ids = (await seen()) as Record<string, { id: string }>;
      await ok(run, 'PUT', '/versions/r2/topics/intro/translations/en', { title: 'Intro', bodyMd: 'All about okapis.\n' });
      assert.equal((await ok(run, 'GET', '/versions/r2/search?q=okapis&lang=en')).hits.length, 1);
      assert.equal((await ok(run, 'GET', '/versions/r1/search?q=okapis&lang=en')).hits.length, 0, 'a write to one copy stays in it');
      assert.equal((await ok(run, 'GET', '/versions/r3/search?q=zebras&lang=en')).hits.length, 1);
      await run.service.close();
      run = await start(dataDir);
      assert.equal((await ok(run, 'GET', '/versions/r2/topics/intro')).bodyMd, 'All about okapis.\n');
      assert.equal((await ok(run, 'GET', '/versions/r1/topics/intro')).bodyMd, 'All about zebras.\n');
      assert.deepEqual(((await seen()) as Record<string, { id: string }>).r3.id, ids.r3.id, 'ids are stable across starts');
    } finally {
      await run.service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('identical folders share one snapshot file; edits, duplicates and deletes leave none that no version needs, and every version restarts as it was', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    const gitdir = join(dataDir, 'content.git');
    const slugs = () => ['r1', 'r2', 'r3', 'r4'];
    const everything = async () => {
      const out: Record<string, unknown> = {};
      for (const v of slugs()) {
        const res = await run.request('GET', `/versions/${v}/export`);
        out[v] = res.status === 200 ? { export: res.body, ids: (await ok(run, 'GET', `/versions/${v}/nodes`)).nodes?.map((n: { id: string }) => n.id) ?? res.body } : res.status;
      }
      return out;
    };
    let run = await start(dataDir);
    try {
      await run.service.close();
      commitWithGit(gitdir, { ...releaseFolder('r1'), ...releaseFolder('r2'), ...releaseFolder('r3') }, 'three identical releases by hand');
      run = await start(dataDir);
      await run.service.close();
      const shared = snapshotFiles(dataDir);
      assert.equal(shared.length, 1, 'three versions with one tree: one snapshot');

      run = await start(dataDir);
      await ok(run, 'PUT', '/versions/r2/topics/intro/translations/en', { title: 'Intro', bodyMd: 'All about okapis.\n' });
      await ok(run, 'POST', '/versions/r1/duplicate', { slug: 'r4' });
      const first = await everything();
      await run.service.close();
      const afterEdit = snapshotFiles(dataDir);
      assert.ok(afterEdit.includes(shared[0]), 'r1 and r3 still use the shared snapshot');
      assert.equal(afterEdit.length, 3, `the shared one, r2's and r4's: ${afterEdit.join(', ')}`);
      const r2Before = pointerOf(dataDir, 'r2');

      run = await start(dataDir);
      assert.deepEqual(await everything(), first, 'restored from the snapshots: the same content and ids in every version');
      assert.deepEqual([...new Set(slugs().slice(0, 3).map((v) => messages(run, v).length))], [0], 'none read from git');
      await ok(run, 'PUT', '/versions/r2/topics/setup/translations/en', { title: 'Setup', bodyMd: 'Install the tapir.\n' });
      await ok(run, 'DELETE', '/versions/r4');
      await ok(run, 'DELETE', '/versions/r3');
      const second = await everything();
      await run.service.close();
      const now = snapshotFiles(dataDir);
      assert.equal(now.length, 2, `r1's and r2's newest: ${now.join(', ')}`);
      assert.ok(now.includes(shared[0]) && !now.includes(r2Before), "r2's previous snapshot and r4's are gone");
      assert.ok(!existsSync(join(dataDir, 'snapshots', 'r4.tree')) && !existsSync(join(dataDir, 'snapshots', 'r3.tree')));

      run = await start(dataDir);
      assert.deepEqual(await everything(), second);
      assert.equal((await ok(run, 'GET', '/versions/r2/topics/setup')).bodyMd, 'Install the tapir.\n');
      assert.equal((await ok(run, 'GET', '/versions/r2/search?q=okapis&lang=en')).hits.length, 1);
      await run.service.close();

      // A snapshot missing from under its pointer: read from git, the same as before.
      rmSync(snapshotOf(dataDir, 'r2'));
      run = await start(dataDir);
      assert.deepEqual(messages(run, 'r2'), ['version read from git']);
      assert.deepEqual(await everything(), second);
    } finally {
      await run.service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('versions removed or added in git while the server was stopped', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    const gitdir = join(dataDir, 'content.git');
    const folder = (slug: string, word: string) => ({
      [`${slug}/version.json`]: versionJson({ label: `Version ${slug}`, languages: ['en'], nav: ['intro'] }),
      [`${slug}/en/intro.md`]: md(`Intro ${slug}`, `All about ${word}.\n`),
    });
    let run = await start(dataDir);
    try {
      await run.service.close();
      commitWithGit(gitdir, { ...folder('a', 'apples'), ...folder('b', 'bananas') }, 'a and b by hand');
      run = await start(dataDir);
      await run.service.close();
      assert.ok(existsSync(snapshotOf(dataDir, 'a')) && existsSync(snapshotOf(dataDir, 'b')));
      const treeOfB = pointerOf(dataDir, 'b');

      commitWithGit(gitdir, { ...folder('a', 'apples'), ...folder('c', 'cherries') }, 'b removed, c added', { replace: true });
      run = await start(dataDir);
      assert.deepEqual(messages(run, 'a'), [], 'a is unchanged: restored');
      assert.deepEqual(messages(run, 'c'), ['version read from git']);
      assert.equal((await run.request('GET', '/versions/b/nodes')).status, 404);
      assert.equal((await ok(run, 'GET', '/versions/c/search?q=cherries&lang=en')).hits.length, 1);
      assert.equal((await ok(run, 'GET', '/versions/a/search?q=apples&lang=en')).hits.length, 1);
      assert.ok(!existsSync(join(dataDir, 'snapshots', 'b.tree')) && !existsSync(treeSnapshot(dataDir, treeOfB)), "the removed version's snapshot is deleted");
      await run.service.close();
      assert.ok(existsSync(snapshotOf(dataDir, 'c')));
      assert.equal(gitTracksSnapshots(gitdir), false, 'snapshots are never committed');
    } finally {
      await run.service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function flipByte(file: string, at: number): void {
  const data = readFileSync(file);
  data[at] ^= 0xff;
  writeFileSync(file, data);
}

/** Whether any commit of the content repository holds a snapshot file. */
function gitTracksSnapshots(gitdir: string): boolean {
  return execFileSync('git', ['log', '--all', '--name-only', '--format='], { cwd: gitdir, encoding: 'utf8' }).includes('.snapshot');
}

/** A release folder written by hand, without ids (node ids are derived from the version's slug). */
function releaseFolder(slug: string): Record<string, string> {
  return {
    [`${slug}/version.json`]: versionJson({ label: 'Release', languages: ['en'], nav: ['intro', 'setup'] }),
    [`${slug}/en/intro.md`]: md('Intro', 'All about zebras.\n'),
    [`${slug}/en/setup.md`]: md('Setup', 'Install the giraffe.\n'),
  };
}
