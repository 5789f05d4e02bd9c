import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { KeyFile } from '../../src/auth/key-file.ts';
import { createKey } from '../../src/cli/keys.ts';
import { md, versionJson } from '../helpers/content.ts';
import { PROJECT } from '../helpers/process.ts';
import { startTestServer } from '../helpers/server.ts';
import { Random } from '../helpers/generate.ts';

/** Rounds of write, kill -9, restart and check: a few in CI, many with `npm run soak` (SOAK_ROUNDS). */
const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 3);
const WRITERS = 4;

/** The service as production runs it, in a child process that can be killed with SIGKILL. */
async function spawnService(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: PROJECT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', HELP_DATA_DIR: dataDir, HELP_SAMPLE_CONTENT: 'off', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), 30_000);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const ready = /"msg":"ready"/.test(out) ? /"url":"(http:\/\/127\.0\.0\.1:\d+\/help\/v1)"/.exec(out) : null;
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
  return { child, url };
}

interface Sent {
  value: string;
  acknowledged: boolean;
}

/**
 * Every write a client saw acknowledged (200) must be there after a kill -9 and a restart: the value
 * it wrote, or one its writer sent later (a write can reach the disk and lose its answer).
 */
describe(`kill -9 during concurrent writes and imports (${ROUNDS} rounds)`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'help-kill-'));
  let key = '';
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('every acknowledged write survives, history stays linear and git fsck stays clean', async () => {
    key = (await createKey(new KeyFile(dataDir), { name: 'writer' })).key;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const send = (url: string, method: string, path: string, body: unknown) =>
      fetch(`${url}${path}`, { method, headers, body: JSON.stringify(body), signal: AbortSignal.timeout(15_000) }).then(
        (r) => r.status,
        () => 0,
      );
    /** Per translation (writer): everything sent, in order. */
    const sent = new Map<string, Sent[]>();
    let acknowledged = 0;

    for (let round = 0; round < ROUNDS; round++) {
      const rand = new Random(round + 1);
      const { child, url } = await spawnService(dataDir);
      if (round === 0) {
        assert.equal(await send(url, 'POST', '/versions', { slug: 'v1', label: 'One', status: 'published', languages: ['en'] }), 200);
        for (let w = 0; w < WRITERS; w++) assert.equal(await send(url, 'POST', '/versions/v1/nodes', { slug: `w${w}`, kind: 'topic', translations: { en: { title: 'start' } } }), 200);
        acknowledged += 1 + WRITERS;
      }
      let stop = false;
      const writer = async (name: string, write: (value: string) => Promise<number>) => {
        const log = sent.get(name) ?? [];
        sent.set(name, log);
        for (let i = 0; !stop; i++) {
          const entry = { value: `${name} round ${round} n${i}`, acknowledged: false };
          log.push(entry);
          const status = await write(entry.value);
          if (status === 200) {
            entry.acknowledged = true;
            acknowledged++;
          } else if (status !== 0) throw new Error(`${name}: ${status}`);
          if (status === 0) return; // the server is gone
        }
      };
      const writers = [
        ...Array.from({ length: WRITERS }, (_, w) => writer(`w${w}`, (v) => send(url, 'PUT', `/versions/v1/topics/w${w}/translations/en`, { title: v, bodyMd: `${v}\n`.repeat(50) }))),
        writer('files', (v) =>
          send(url, 'POST', '/versions/files/import-files', { files: [{ path: 'version.json', content: versionJson({ label: 'Files', nav: ['page'] }) }, { path: 'en/page.md', content: md(v, `${v}\n`.repeat(200)) }] }),
        ),
        writer('json', (v) => send(url, 'POST', '/versions/v1/import', { nodes: [{ slug: 'imported', kind: 'topic', translations: { en: { title: v } } }] })),
      ];
      await new Promise((r) => setTimeout(r, 300 + rand.next() * 1200));
      child.kill('SIGKILL');
      stop = true;
      await Promise.all(writers);
      await new Promise((r) => child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r));

      // After the crash: the service starts, and each writer's value is its last acknowledged one or a later one.
      const s = await startTestServer({ dataDir });
      try {
        const current = async (name: string) => {
          const path = name === 'files' ? '/versions/files/topics/page/translations/en' : name === 'json' ? '/versions/v1/topics/imported/translations/en' : `/versions/v1/topics/${name}/translations/en`;
          const res = await s.request('GET', path, { key });
          return res.status === 200 ? (res.body.title as string) : null;
        };
        for (const [name, log] of sent) {
          const lastAck = log.map((e) => e.acknowledged).lastIndexOf(true);
          if (lastAck < 0) continue;
          const allowed = log.slice(lastAck).map((e) => e.value);
          const now = await current(name);
          assert.ok(now !== null && allowed.includes(now), `round ${round}, ${name}: "${now}" after acknowledging "${log[lastAck].value}"`);
        }
        const commits = Number(execFileSync('git', ['rev-list', '--count', 'main'], { cwd: s.gitdir, encoding: 'utf8' }).trim());
        assert.ok(commits >= acknowledged, `round ${round}: ${commits} commits for ${acknowledged} acknowledged writes`);
        assert.equal(execFileSync('git', ['rev-list', '--merges', '--count', 'main'], { cwd: s.gitdir, encoding: 'utf8' }).trim(), '0', 'linear history');
        execFileSync('git', ['fsck', '--strict', '--no-progress'], { cwd: s.gitdir, stdio: 'pipe' });
      } finally {
        await s.service.close();
      }
    }
  });
});
