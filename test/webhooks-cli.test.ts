import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PROJECT, runProcess } from './helpers/process.ts';
import { Receiver, verifySignature } from './helpers/webhook-receiver.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let s: TestServer;
let receiver: Receiver;
before(async () => {
  receiver = await new Receiver().start();
  s = await startTestServer({ env: { HELP_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
  await s.request('POST', '/versions', { body: { slug: 'v1', label: 'One', languages: ['en'] } });
});
after(async () => {
  await s.close();
  await receiver.stop();
});

const cli = (...args: string[]) =>
  runProcess(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'webhooks', ...args, '--data-dir', s.dataDir], { cwd: PROJECT, env: { PATH: process.env.PATH, HELP_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' }, timeout: 30_000 });

test('webhooks create, list, deliveries and delete from the command line, while the server runs', async () => {
  const created = await cli('create', '--url', `${receiver.url}/cli`, '--events', 'node.created', '--versions', 'v1', '--json');
  assert.equal(created.code, 0, created.stderr);
  const { webhook, secret } = JSON.parse(created.stdout);
  assert.match(secret, /^whsec_/);
  assert.deepEqual([webhook.createdBy, webhook.versions, webhook.enabled], ['cli', ['v1'], true]);

  // The running server delivers to it at once, signed with the secret the command printed.
  assert.equal((await s.request('POST', '/versions/v1/nodes', { body: { slug: 'from-cli', translations: { en: { title: 'From the CLI' } } } })).status, 200);
  const [r] = await receiver.waitFor('/cli', 1);
  assert.ok(verifySignature(secret, r));

  const list = await cli('list', '--json');
  assert.equal(list.code, 0, list.stderr);
  assert.ok(!list.stdout.includes(secret));
  assert.deepEqual(JSON.parse(list.stdout).map((w: { id: string }) => w.id), [webhook.id]);

  let log: { pending: number; deliveries: Array<{ status: number; outcome: string }> } = { pending: 1, deliveries: [] };
  for (let i = 0; i < 100 && log.deliveries.length === 0; i++) {
    const out = await cli('deliveries', '--id', webhook.id, '--json');
    assert.equal(out.code, 0, out.stderr);
    log = JSON.parse(out.stdout);
  }
  assert.deepEqual([log.deliveries[0].status, log.deliveries[0].outcome], [200, 'delivered']);

  assert.equal((await cli('delete', '--id', webhook.id)).code, 0);
  assert.deepEqual((await s.request('GET', '/webhooks')).body.webhooks, []);
});

test('the command line refuses what the API refuses: exit 2 for a bad URL, event or option, 1 for an unknown id', async () => {
  for (const args of [['create', '--url', 'http://10.0.0.1/x', '--events', 'node.created'], ['create', '--url', 'ftp://hooks.example/', '--events', 'node.created'], ['create', '--url', 'https://hooks.example/', '--events', 'node.renamed'], ['create', '--url', 'https://hooks.example/'], ['list', '--url', 'x'], ['frobnicate']]) {
    const out = await cli(...args);
    assert.equal(out.code, 2, `${args.join(' ')}: ${out.stderr}`);
    assert.match(out.stderr, /^Error: /);
  }
  assert.equal((await cli('delete', '--id', '00000000-0000-0000-0000-000000000000')).code, 1);
});
