import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { createKey } from '../src/cli/keys.ts';
import { KeyFile } from '../src/auth/key-file.ts';
import { PROJECT } from './helpers/process.ts';
import { startTestServer } from './helpers/server.ts';

const SAMPLE = join(PROJECT, 'content-sample');

describe('Running it', () => {
  test('an empty data directory gets the sample content as the latest published version, once', async () => {
    let s = await startTestServer({ sample: SAMPLE });
    try {
      const versions = (await s.request('GET', '/versions', { key: null })).body;
      assert.equal(versions.length, 1);
      assert.equal(versions[0].status, 'published');
      assert.equal(versions[0].isLatest, true);
      assert.ok(versions[0].languages.length >= 2);
      const nodes = (await s.request('GET', `/versions/${versions[0].slug}/nodes`, { key: null })).body.nodes;
      assert.ok(nodes.length >= 15 && nodes.length <= 30, `${nodes.length} nodes`);
      assert.ok(nodes.some((n: any) => n.kind === 'section') && nodes.some((n: any) => n.kind === 'topic'));
      assert.ok(nodes.some((n: any) => Object.keys(n.translations).length >= 2));
      assert.equal(s.commitCount(), 1);
      s = await s.restart();
      assert.equal(s.commitCount(), 1, 'a second start imports nothing');
    } finally {
      await s.close();
    }
  });

  test('keys created before the first start do not stop the sample import', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    await createKey(new KeyFile(dataDir), { name: 'early' });
    const s = await startTestServer({ sample: SAMPLE, dataDir });
    try {
      assert.equal((await s.request('GET', '/versions', { key: null })).body.length, 1);
    } finally {
      await s.close();
    }
  });

  test('GET /healthz answers 200 once the service can serve', async () => {
    const s = await startTestServer();
    try {
      const res = await fetch(s.url.replace('/help/v1', '/healthz'));
      assert.equal(res.status, 200);
      assert.equal((await res.json()).ok, true);
    } finally {
      await s.close();
    }
  });

  test('SIGTERM finishes in-flight writes, releases the data directory and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    const { key } = await createKey(new KeyFile(dataDir), { name: 'ops' });
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: PROJECT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', HELP_DATA_DIR: dataDir, HELP_SAMPLE_CONTENT: SAMPLE, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no ready line: ${out}`)), 20_000);
        child.stdout.on('data', (chunk) => {
          out += chunk;
          const ready = out.split('\n').map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((l) => l.msg === 'ready');
          if (ready) {
            clearTimeout(timer);
            resolve(ready.url);
          }
        });
        child.once('exit', () => reject(new Error(`exited early: ${out}`)));
      });
      const version = (await (await fetch(`${url}/versions`)).json())[0].slug;
      const topic = (await (await fetch(`${url}/versions/${version}/nodes`)).json()).nodes.find((n: any) => n.kind === 'topic').slug;
      const writes = Array.from({ length: 8 }, (_, i) =>
        fetch(`${url}/versions/${version}/topics/${topic}/translations/en`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Title ${i}`, bodyMd: `write ${i}\n` }),
        }).then(
          async (r) => ({ status: r.status, body: await r.json() }),
          () => ({ status: 0, body: null }),
        ),
      );
      await Promise.race(writes);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      const results = await Promise.all(writes);
      assert.equal(await exited, 0);
      assert.equal(existsSync(join(dataDir, 'server.lock')), false, 'the lock is released');
      const acknowledged = results.filter((r) => r.status === 200);
      assert.ok(acknowledged.length >= 1);
      const gitdir = join(dataDir, 'content.git');
      const subjects = execFileSync('git', ['log', '--format=%s', 'main'], { cwd: gitdir, encoding: 'utf8' });
      assert.equal(subjects.trim().split('\n').length, 1 + acknowledged.length, 'every acknowledged write is a commit');
      execFileSync('git', ['fsck', '--strict', '--no-progress'], { cwd: gitdir, stdio: 'pipe' });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
