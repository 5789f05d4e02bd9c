import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { md } from '../helpers/content.ts';
import { commitWithGit } from '../helpers/git.ts';
import { createNode, createVersion, startTestServer, type TestServer } from '../helpers/server.ts';

/** The service owns its repository's branch: nothing pushed or committed by hand is lost or overwritten. */
describe('Pushes and commits into the data repository by hand', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { status: 'published' });
    await createNode(s, 'v1', { slug: 'a' });
  });
  after(() => s.close());

  test('git push is refused with a message saying how to change content; main does not move', () => {
    const work = mkdtempSync(join(tmpdir(), 'help-push-'));
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GIT_AUTHOR_NAME: 'w', GIT_AUTHOR_EMAIL: 'w@example.org', GIT_COMMITTER_NAME: 'w', GIT_COMMITTER_EMAIL: 'w@example.org' } });
      git('clone', '-q', s.gitdir, '.');
      writeFileSync(join(work, 'v1', 'en', 'a.md'), md('Pushed by hand'));
      git('commit', '-qam', 'By hand');
      const head = s.git('rev-parse', 'main').trim();
      const push = spawnSync('git', ['push', 'origin', 'HEAD:main'], { cwd: work, encoding: 'utf8' });
      assert.notEqual(push.status, 0);
      assert.match(push.stderr, /managed by the help content service and does not take pushes/);
      assert.match(push.stderr, /npm run cli -- push/);
      assert.equal(s.git('rev-parse', 'main').trim(), head);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('a commit made around the hook is never overwritten: the next write is refused until a restart loads it', async () => {
    commitWithGit(s.gitdir, { 'v1/en/a.md': md('Committed by hand') }, 'By hand, around the hook');
    const hand = s.git('rev-parse', 'main').trim();
    const res = await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'From the API' } });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'repository_changed');
    assert.match(res.body.error.message, /changed outside the service.*Restart the service/);
    assert.equal(s.git('rev-parse', 'main').trim(), hand, 'the hand commit is still the head');

    s = await s.restart();
    assert.equal((await s.request('GET', '/versions/v1/topics/a/translations/en', { key: null })).body.title, 'Committed by hand');
    assert.equal((await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'From the API' } })).status, 200);
    assert.equal(s.git('rev-parse', 'main~1').trim(), hand, 'the API write carries on from the hand commit');
  });
});

describe('The data repository is configured as git itself would on this system', () => {
  test('core.ignorecase is false (en/Intro.md and en/intro.md are two files), filemode and symlinks true', async () => {
    const s = await startTestServer();
    try {
      const config = (key: string) => s.git('config', '--get', key).trim();
      assert.equal(config('core.ignorecase'), 'false');
      assert.equal(config('core.filemode'), 'true');
      assert.equal(config('core.symlinks'), 'true');
      assert.equal(config('core.bare'), 'true');
    } finally {
      await s.close();
    }
  });
});
