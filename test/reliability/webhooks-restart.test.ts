import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { KeyFile } from '../../src/auth/key-file.ts';
import { createKey } from '../../src/cli/keys.ts';
import { PROJECT } from '../helpers/process.ts';
import { Receiver, verifySignature } from '../helpers/webhook-receiver.ts';

/** The service as production runs it, in a child process that can be killed with SIGKILL. */
async function spawnService(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: PROJECT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', HELP_DATA_DIR: dataDir, HELP_SAMPLE_CONTENT: 'off', LOG_LEVEL: 'info', HELP_WEBHOOK_ALLOW_HOSTS: '127.0.0.1', HELP_WEBHOOK_RETRY_MS: '100', HELP_WEBHOOK_RETRY_WINDOW: '600' },
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

const killed = (child: ChildProcess) => new Promise<void>((resolve) => {
  child.once('exit', () => resolve());
  child.kill('SIGKILL');
});

const dataDir = mkdtempSync(join(tmpdir(), 'help-webhooks-kill-'));
const receiver = new Receiver();
const children: ChildProcess[] = [];
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await receiver.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('deliveries queued before a kill -9 are made after the restart: every acknowledged write, signed, none lost', async () => {
  await receiver.start();
  // Down during the first run: every delivery fails and waits in the queue for its retry.
  receiver.answer = () => 503;
  const key = (await createKey(new KeyFile(dataDir), { name: 'writer' })).key;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const call = async (url: string, method: string, path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method, headers, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
    return { status: res.status, body: await res.json() };
  };

  const first = await spawnService(dataDir);
  children.push(first.child);
  assert.equal((await call(first.url, 'POST', '/versions', { slug: 'v1', label: 'One', languages: ['en'] })).status, 200);
  const sub = await call(first.url, 'POST', '/webhooks', { url: `${receiver.url}/hook`, events: ['node.created'] });
  assert.equal(sub.status, 201);
  const slugs = ['a', 'b', 'c', 'd', 'e'];
  for (const slug of slugs) assert.equal((await call(first.url, 'POST', '/versions/v1/nodes', { slug, translations: { en: { title: slug } } })).status, 200);
  await receiver.waitFor('/hook', 1);
  await killed(first.child);
  const failedBefore = receiver.at('/hook').length;

  receiver.answer = () => 200;
  const second = await spawnService(dataDir);
  children.push(second.child);
  const delivered = new Map<string, string>();
  const deadline = Date.now() + 20_000;
  while (delivered.size < slugs.length) {
    assert.ok(Date.now() < deadline, `delivered after the restart: ${[...delivered.values()].join(', ')}`);
    for (const r of receiver.at('/hook').slice(failedBefore)) {
      assert.ok(verifySignature(sub.body.secret, r));
      const { type, data } = JSON.parse(r.body);
      assert.equal(type, 'node.created');
      delivered.set(String(r.headers['webhook-id']), data.slugs[0]);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual([...delivered.values()].sort(), slugs);
  const log = await fetch(`${second.url}/webhooks/${sub.body.webhook.id}/deliveries`, { headers }).then((r) => r.json());
  assert.equal(log.pending, 0);
  assert.ok(log.deliveries.some((d: { status: number }) => d.status === 503), 'the failed attempts of the first run are in the log');
  await killed(second.child);
});
