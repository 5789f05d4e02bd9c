import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AccountFile } from '../src/auth/accounts.ts';
import { createAccount } from '../src/cli/accounts.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

/**
 * The backups docs/operations.md describes, taken while the service writes, restored into a new data
 * directory: the restored service serves the same content and accepts the same keys.
 */
/** What docs/operations.md copies besides content.git (each there once the service has one). */
const BACKED_UP_FILES = ['keys.json', 'accounts.json', 'oauth'];

describe('Backup and restore, as the operators guide says', () => {
  let s: TestServer;
  const scratch = mkdtempSync(join(tmpdir(), 'help-backup-'));
  before(async () => {
    s = await startTestServer();
    await createAccount(new AccountFile(s.dataDir), { name: 'ada', role: 'editor', password: 'a long passphrase here' });
    await createVersion(s, 'v1', { status: 'published', isLatest: true });
    await createVersion(s, 'v2');
    await createNode(s, 'v1', { slug: 'intro', translations: { en: { title: 'Intro', bodyMd: '# Hello\n' }, de: { title: 'Einführung' } } });
    await createNode(s, 'v2', { slug: 'draft-topic' });
  });
  after(async () => {
    await s.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  /** A version's export, read with the writer key of the original service (the restored one has the same keys). */
  const exportOf = async (t: TestServer, version: string) => (await t.request('GET', `/versions/${version}/export`, { key: s.key })).body;

  /** Starts a service on a new data directory holding `content.git` as restored and the backed-up keys. */
  async function restoreInto(name: string, restore: (gitdir: string) => void): Promise<TestServer> {
    const dataDir = join(scratch, name);
    mkdirSync(dataDir);
    restore(join(dataDir, 'content.git'));
    // The other files that matter, as the guide copies them.
    for (const file of BACKED_UP_FILES) cpSync(join(scratch, 'files', file), join(dataDir, file), { recursive: true });
    return startTestServer({ dataDir });
  }

  for (const [how, backup, restore] of [
    ['git clone --mirror', (to: string) => git(scratch, 'clone', '-q', '--mirror', s.gitdir, to), (from: string, gitdir: string) => git(scratch, 'clone', '-q', '--mirror', from, gitdir)],
    ['git bundle', (to: string) => git(s.gitdir, 'bundle', 'create', to, '--all'), (from: string, gitdir: string) => git(scratch, 'clone', '-q', '--mirror', from, gitdir)],
  ] as const) {
    test(`${how}, taken while writes go on, restores the same versions, content and keys`, async () => {
      for (const file of BACKED_UP_FILES) cpSync(join(s.dataDir, file), join(scratch, 'files', file), { recursive: true });
      const writes = Array.from({ length: 6 }, (_, i) => s.request('PUT', '/versions/v2/topics/draft-topic/translations/en', { body: { title: `Draft ${i}` } }));
      const file = join(scratch, how === 'git bundle' ? 'content.bundle' : 'content-mirror.git');
      backup(file);
      await Promise.all(writes);
      const backedUp = git(how === 'git bundle' ? s.gitdir : file, ...(how === 'git bundle' ? ['bundle', 'list-heads', file] : ['rev-parse', 'main'])).trim().split(/\s/)[0];

      const restored = await restoreInto(how.replace(/\W+/g, '-'), (gitdir) => restore(file, gitdir));
      try {
        assert.equal(git(restored.gitdir, 'rev-parse', 'main').trim(), backedUp, 'main is the commit backed up');
        git(restored.gitdir, 'fsck', '--strict', '--no-progress');
        // The published version is exactly as it was (it had no writes during the backup).
        assert.deepEqual(await exportOf(restored, 'v1'), await exportOf(s, 'v1'));
        const versions = (await restored.request('GET', '/versions', { key: s.key })).body.map((v: { slug: string }) => v.slug).sort();
        assert.deepEqual(versions, ['v1', 'v2']);
        // The writer's key from the backup works, and the restored service takes writes.
        const write = await restored.request('PUT', '/versions/v2/topics/draft-topic/translations/de', { key: s.key, body: { title: 'Entwurf' } });
        assert.equal(write.status, 200);
        assert.equal((await restored.request('GET', '/versions/v1/tree', { key: null })).status, 200);
        // Sign-in survives: the account, and the authorization server's keys (tokens and clients stay valid).
        assert.deepEqual(new AccountFile(restored.dataDir).read().map((a) => a.name), ['ada']);
        assert.equal(readFileSync(join(restored.dataDir, 'oauth', 'secrets.json'), 'utf8'), readFileSync(join(s.dataDir, 'oauth', 'secrets.json'), 'utf8'));
      } finally {
        await restored.close();
      }
    });
  }
});
