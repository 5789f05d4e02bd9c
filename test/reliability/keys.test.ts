import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { KeyFile } from '../../src/auth/key-file.ts';
import { revokeKey } from '../../src/cli/keys.ts';
import { createNode, createVersion, startTestServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);

describe('Keys take effect the moment the command that changes them returns', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1');
    await createNode(s, 'v1', { slug: 'a' });
  });
  after(() => s.close());

  test('the key printed by "keys create" works at once, and "keys revoke" refuses it at once (the real CLI)', async () => {
    const cli = ['--import', 'tsx', 'src/cli/main.ts', 'keys'];
    const env = { ...process.env, HELP_DATA_DIR: s.dataDir };
    const created = JSON.parse((await run(process.execPath, [...cli, 'create', '--name', 'walkthrough', '--json'], { env })).stdout) as { key: string };
    assert.equal((await s.request('GET', '/whoami', { key: created.key })).status, 200);
    await run(process.execPath, [...cli, 'revoke', '--name', 'walkthrough'], { env });
    assert.equal((await s.request('GET', '/whoami', { key: created.key })).status, 401);
  });

  test('twenty keys in a row: each is accepted by the first request, and no write gets through after its revocation', async () => {
    const file = new KeyFile(s.dataDir);
    for (let i = 0; i < 20; i++) {
      const key = await s.createKey({ name: `round-${i}` });
      const first = await s.request('PUT', '/versions/v1/topics/a/translations/en', { key, body: { title: `Round ${i}` } });
      assert.equal(first.status, 200, `round ${i}: a fresh key was refused`);
      await revokeKey(file, `round-${i}`);
      const commits = s.commitCount();
      const after = await s.request('PUT', '/versions/v1/topics/a/translations/en', { key, body: { title: `Revoked ${i}` } });
      assert.equal(after.status, 401, `round ${i}: a revoked key was accepted`);
      assert.equal(s.commitCount(), commits);
    }
  });
});
