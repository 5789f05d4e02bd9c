import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BrokenRepositoryError } from '../../src/storage/repository.ts';
import { md, versionJson } from '../helpers/content.ts';
import { commitWithGit } from '../helpers/git.ts';
import { PROJECT, runProcess } from '../helpers/process.ts';
import { createNode, createVersion, startTestServer, type TestServer } from '../helpers/server.ts';

const SAMPLE = join(PROJECT, 'content-sample');

/** A data directory with two versions and some writes, the service stopped; returns it and main's commit. */
async function populated(): Promise<{ dataDir: string; gitdir: string; head: string }> {
  const s = await startTestServer({ dataDir: mkdtempSync(join(tmpdir(), 'help-damage-')), sample: SAMPLE });
  await createVersion(s, 'v2', { status: 'published' });
  await createNode(s, 'v2', { slug: 'a' });
  await s.request('PUT', '/versions/v2/topics/a/translations/de', { body: { title: 'A' } });
  const head = s.git('rev-parse', 'main').trim();
  await s.service.close();
  return { dataDir: s.dataDir, gitdir: s.gitdir, head };
}

const git = (gitdir: string, ...args: string[]) => execFileSync('git', args, { cwd: gitdir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('A repository damaged by hand is never served as empty, nor started over', () => {
  test('main deleted: start is refused with the commit to restore and the command that does it; nothing is rewritten', async () => {
    const { dataDir, gitdir, head } = await populated();
    try {
      const snapshots = () => readdirSync(join(dataDir, 'snapshots')).sort();
      const before = snapshots();
      assert.ok(before.length > 0);
      rmSync(join(gitdir, 'refs', 'heads', 'main'));
      await assert.rejects(startTestServer({ dataDir, sample: SAMPLE }), (err: unknown) => {
        assert.ok(err instanceof BrokenRepositoryError);
        assert.match(err.message, /has no branch main/);
        assert.ok(err.message.includes(`update-ref refs/heads/main ${head}`), err.message);
        return true;
      });
      assert.deepEqual(snapshots(), before, 'the snapshots are kept');
      assert.equal(existsSync(join(gitdir, 'refs', 'heads', 'main')), false, 'no new history was started');
      assert.equal(existsSync(join(dataDir, 'server.lock')), false, 'the lock is released');

      // The command the message gives brings everything back.
      git(gitdir, 'update-ref', 'refs/heads/main', head);
      const s: TestServer = await startTestServer({ dataDir, sample: SAMPLE });
      try {
        const versions = (await s.request('GET', '/versions', { key: null })).body.map((v: { slug: string }) => v.slug).sort();
        assert.deepEqual(versions, ['v1', 'v2']);
        assert.equal(s.git('rev-parse', 'main').trim(), head, 'no sample import on top');
      } finally {
        await s.service.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('the entry point says it in one line and exits 1', async () => {
    const { dataDir, gitdir, head } = await populated();
    try {
      rmSync(join(gitdir, 'refs', 'heads', 'main'));
      const run = await runProcess(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: PROJECT,
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', HELP_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
        timeout: 30_000,
      });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, new RegExp(`^Cannot start: .*has no branch main.*update-ref refs/heads/main ${head}`));
      assert.equal(run.stderr.trim().split('\n').length, 1);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a version.json committed by hand that marks a draft latest: the mark is ignored, and "latest" never names the draft', async () => {
    const s0 = await startTestServer();
    let s = s0;
    try {
      commitWithGit(s.gitdir, { 'secret-draft/version.json': versionJson({ label: 'Not yet', status: 'draft', isLatest: true, nav: ['a'] }), 'secret-draft/en/a.md': md('A') }, 'A draft marked latest by hand');
      s = await s.restart();
      const anonymous = await s.request('GET', '/versions/latest/pdf-bundle', { key: null });
      assert.equal(anonymous.status, 404);
      assert.doesNotMatch(anonymous.text, /secret-draft/);
      const listed = (await s.request('GET', '/versions')).body.find((v: { slug: string }) => v.slug === 'secret-draft');
      assert.equal(listed.isLatest, false);
      assert.equal((await s.request('GET', '/versions/latest/pdf-bundle')).status, 404, 'not latest for a reader with a key either');
      // A published version marked latest by hand alongside it is the latest.
      commitWithGit(s.gitdir, { 'v9/version.json': versionJson({ label: 'Nine', status: 'published', isLatest: true, nav: ['a'] }), 'v9/en/a.md': md('A') }, 'A published version marked latest by hand');
      s = await s.restart();
      assert.equal((await s.request('GET', '/versions/latest/pdf-bundle', { key: null })).body.version.slug, 'v9');
    } finally {
      await s.close();
    }
  });

  test('content.git replaced by an empty repository while snapshots remain: refused, snapshots kept', async () => {
    const { dataDir, gitdir } = await populated();
    try {
      rmSync(gitdir, { recursive: true, force: true });
      await assert.rejects(startTestServer({ dataDir, sample: SAMPLE }), /has no commit, yet snapshots\/ holds versions v1, v2/);
      assert.ok(readdirSync(join(dataDir, 'snapshots')).length >= 2, 'the snapshots are kept');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
