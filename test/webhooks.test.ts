import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import { addAccount, registerClient, signIn } from './helpers/oauth.ts';
import { Receiver, verifySignature } from './helpers/webhook-receiver.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

/** Polls until `check` returns a value (at most `ms`). */
async function eventually<T>(check: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('Webhooks (receiver on 127.0.0.1, allowed by HELP_WEBHOOK_ALLOW_HOSTS)', () => {
  let s: TestServer;
  let receiver: Receiver;
  const subscribe = (path: string, events: string[], versions?: string[]) => s.request('POST', '/webhooks', { body: { url: `${receiver.url}${path}`, events, ...(versions ? { versions } : {}) } });

  before(async () => {
    receiver = await new Receiver().start();
    // Fast backoff and a short retry window: a failing receiver is given up within seconds.
    s = await startTestServer({ env: { HELP_WEBHOOK_ALLOW_HOSTS: '127.0.0.1', HELP_WEBHOOK_RETRY_MS: '50', HELP_WEBHOOK_RETRY_WINDOW: '2' } });
    assert.equal((await s.request('POST', '/versions', { body: { slug: 'v1', label: 'One', languages: ['en', 'de'] } })).status, 200);
  });
  after(async () => {
    await s.close();
    await receiver.stop();
  });

  test('a subscription answers 201 with its secret once; the list and the log never show it', async () => {
    const res = await subscribe('/once', ['node.created']);
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(res.body.secret.slice(6), 'base64').length, 32);
    assert.deepEqual(res.body.webhook, { id: res.body.webhook.id, url: `${receiver.url}/once`, events: ['node.created'], versions: null, createdAt: res.body.webhook.createdAt, createdBy: 'writer', enabled: true, disabledAt: null, disabledReason: null });
    const list = await s.request('GET', '/webhooks');
    assert.equal(list.status, 200);
    assert.ok(list.body.webhooks.some((w: { id: string }) => w.id === res.body.webhook.id));
    assert.ok(!list.text.includes(res.body.secret) && !list.text.includes('secret'));
    const log = await s.request('GET', `/webhooks/${res.body.webhook.id}/deliveries`);
    assert.equal(log.status, 200);
    assert.ok(!log.text.includes(res.body.secret));
    assert.equal((await s.request('DELETE', `/webhooks/${res.body.webhook.id}`)).status, 200);
  });

  test('validation errors name the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ events: ['node.created'] }, 'body/url'],
      [{ url: `${receiver.url}/x`, events: [] }, 'body/events'],
      [{ url: `${receiver.url}/x`, events: ['node.renamed'] }, 'body/events/0'],
      [{ url: `${receiver.url}/x`, events: ['node.created'], versions: ['Not A Slug'] }, 'body/versions/0'],
      [{ url: `${receiver.url}/x`, events: ['node.created'], secret: 'mine' }, 'body/secret'],
      [{ url: 'ftp://hooks.example/x', events: ['node.created'] }, 'body/url'],
      [{ url: 'not a url', events: ['node.created'] }, 'body/url'],
      [{ url: 'https://user:pw@hooks.example/x', events: ['node.created'] }, 'body/url'],
    ];
    for (const [body, field] of cases) {
      const res = await s.request('POST', '/webhooks', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.field, field, res.text);
    }
  });

  test('SSRF: loopback beyond the allow-list, private, link-local and unspecified addresses are refused at subscription', async () => {
    for (const url of ['http://127.0.0.2:9/x', 'http://[::1]:9/x', 'http://10.1.2.3/x', 'http://192.168.0.10/x', 'http://172.16.5.4/x', 'http://169.254.169.254/latest/meta-data', 'http://0.0.0.0/x', 'http://[::ffff:10.0.0.1]/x', 'http://[fe80::1]/x']) {
      const res = await s.request('POST', '/webhooks', { body: { url, events: ['node.created'] } });
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.equal(res.body.error.field, 'body/url');
      assert.match(res.body.error.message, /loopback|private|link-local|reserved/);
    }
  });

  test('a key without help:write is refused (403), as is no key (401)', async () => {
    const reader = await s.createKey({ name: 'reader', scopes: 'help:read' });
    const created = await subscribe('/perm', ['node.created']);
    for (const [method, path, body] of [['POST', '/webhooks', { url: `${receiver.url}/r`, events: ['node.created'] }], ['GET', '/webhooks', undefined], ['DELETE', `/webhooks/${created.body.webhook.id}`, undefined], ['GET', `/webhooks/${created.body.webhook.id}/deliveries`, undefined]] as const) {
      const res = await s.request(method, path, { key: reader, body });
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.error.code, 'insufficient_scope');
      assert.equal((await s.request(method, path, { key: null, body })).status, 401);
    }
    assert.equal((await s.request('DELETE', `/webhooks/${created.body.webhook.id}`)).status, 200);
    assert.equal((await s.request('DELETE', `/webhooks/${created.body.webhook.id}`)).status, 404);
    assert.equal((await s.request('GET', `/webhooks/${created.body.webhook.id}/deliveries`)).status, 404);
  });

  test('through OAuth, administrators manage webhooks; an editor is refused (403) though its token has help:write', async () => {
    const client = await registerClient(s, { client_name: 'Hooks tool' });
    const admin = (await signIn(s, client, await addAccount(s, 'ada', 'admin'))).tokens.access_token;
    const editor = (await signIn(s, client, await addAccount(s, 'ed', 'editor'))).tokens.access_token;
    const refused = await s.request('GET', '/webhooks', { key: editor });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'insufficient_scope');
    assert.match(refused.body.error.message, /administrators/);
    const made = await s.request('POST', '/webhooks', { key: admin, body: { url: `${receiver.url}/admin`, events: ['node.deleted'] } });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.webhook.createdBy, 'ada');
    assert.equal((await s.request('DELETE', `/webhooks/${made.body.webhook.id}`, { key: admin })).status, 200);
  });

  test('deliveries are signed (verified here from the recipe) and name the version, slugs, languages and the new revision', async () => {
    const created = await subscribe('/signed', ['node.created', 'node.updated', 'node.deleted', 'translation.updated', 'version.updated', 'version.published']);
    const { secret } = created.body;
    assert.equal((await s.request('POST', '/versions/v1/nodes', { body: { slug: 'install', kind: 'topic', translations: { en: { title: 'Install' }, de: { title: 'Installieren' } } } })).status, 200);
    const afterCreate = s.git('rev-parse', 'main').trim();
    const [nodeCreated, translated] = await receiver.waitFor('/signed', 2);
    for (const r of [nodeCreated, translated]) {
      assert.ok(verifySignature(secret, r), 'the signature verifies');
      assert.match(String(r.headers['webhook-id']), /^msg_/);
      assert.ok(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
      assert.equal(r.headers['content-type'], 'application/json');
      // Another secret, or a changed body, does not verify.
      assert.ok(!verifySignature(`whsec_${Buffer.alloc(32).toString('base64')}`, r));
      assert.ok(!verifySignature(secret, { ...r, body: r.body.replace('install', 'instal1') }));
    }
    const a = JSON.parse(nodeCreated.body);
    assert.equal(a.type, 'node.created');
    assert.deepEqual(a.data, { version: 'v1', revision: afterCreate, slugs: ['install'] });
    assert.match(a.timestamp, /^\d{4}-\d\d-\d\dT/);
    const b = JSON.parse(translated.body);
    assert.equal(b.type, 'translation.updated');
    assert.deepEqual({ ...b.data, languages: [...b.data.languages].sort() }, { version: 'v1', revision: afterCreate, slugs: ['install'], languages: ['de', 'en'] });

    assert.equal((await s.request('PUT', '/versions/v1/topics/install/translations/de', { body: { title: 'Installation' } })).status, 200);
    const [, , third] = await receiver.waitFor('/signed', 3);
    assert.deepEqual(JSON.parse(third.body).data, { version: 'v1', revision: s.git('rev-parse', 'main').trim(), slugs: ['install'], languages: ['de'] });

    assert.equal((await s.request('PATCH', '/versions/v1/nodes/install', { body: { slug: 'setup' } })).status, 200);
    const renamed = JSON.parse((await receiver.waitFor('/signed', 4))[3].body);
    assert.deepEqual([renamed.type, renamed.data.slugs], ['node.updated', ['setup']]);

    assert.equal((await s.request('PATCH', '/versions/v1', { body: { status: 'published' } })).status, 200);
    const [published, updated] = (await receiver.waitFor('/signed', 6)).slice(4).map((r) => JSON.parse(r.body));
    assert.deepEqual([published.type, published.data.version, published.data.status], ['version.published', 'v1', 'published']);
    assert.deepEqual([updated.type, updated.data.change, updated.data.status], ['version.updated', 'updated', 'published']);

    assert.equal((await s.request('DELETE', '/versions/v1/nodes/setup')).status, 200);
    const deleted = JSON.parse((await receiver.waitFor('/signed', 7))[6].body);
    assert.deepEqual([deleted.type, deleted.data.slugs], ['node.deleted', ['setup']]);

    const log = await s.request('GET', `/webhooks/${created.body.webhook.id}/deliveries`);
    assert.equal(log.body.pending, 0);
    assert.equal(log.body.deliveries.length, 7);
    for (const d of log.body.deliveries) {
      assert.equal(d.status, 200);
      assert.equal(d.outcome, 'delivered');
      assert.equal(typeof d.ms, 'number');
    }
    assert.equal((await s.request('DELETE', `/webhooks/${created.body.webhook.id}`)).status, 200);
  });

  test('a version filter and the events asked for decide what is sent', async () => {
    await s.request('POST', '/versions', { body: { slug: 'v2', label: 'Two', languages: ['en'] } });
    const only = await subscribe('/only-v2', ['node.created'], ['v2']);
    assert.deepEqual(only.body.webhook.versions, ['v2']);
    await s.request('POST', '/versions/v1/nodes', { body: { slug: 'elsewhere', translations: { en: { title: 'Elsewhere' } } } });
    await s.request('POST', '/versions/v2/nodes', { body: { slug: 'here', translations: { en: { title: 'Here' } } } });
    const [r] = await receiver.waitFor('/only-v2', 1);
    assert.deepEqual(JSON.parse(r.body).data.slugs, ['here']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(receiver.at('/only-v2').length, 1, 'only v2, only node.created');
    await s.request('DELETE', `/webhooks/${only.body.webhook.id}`);
  });

  test('a receiver error is retried with the same webhook-id until it answers 2xx; the log has both attempts', async () => {
    receiver.answer = (path, n) => (path === '/flaky' && n === 1 ? 500 : 200);
    const created = await subscribe('/flaky', ['node.created'], ['v2']);
    await s.request('POST', '/versions/v2/nodes', { body: { slug: 'retried', translations: { en: { title: 'Retried' } } } });
    const [first, second] = await receiver.waitFor('/flaky', 2);
    assert.equal(first.headers['webhook-id'], second.headers['webhook-id']);
    assert.equal(first.body, second.body);
    assert.ok(verifySignature(created.body.secret, second));
    const log = await eventually(async () => {
      const res = await s.request('GET', `/webhooks/${created.body.webhook.id}/deliveries`);
      return res.body.deliveries.length === 2 ? res.body : undefined;
    });
    const [latest, earliest] = log.deliveries;
    assert.deepEqual([earliest.attempt, earliest.status, earliest.ok, earliest.outcome], [1, 500, false, 'retry']);
    assert.ok(earliest.retryAt);
    assert.deepEqual([latest.attempt, latest.status, latest.ok, latest.outcome], [2, 200, true, 'delivered']);
    assert.equal(log.pending, 0);
    await s.request('DELETE', `/webhooks/${created.body.webhook.id}`);
  });

  test('a subscription whose receiver keeps failing past the retry window is disabled, and says why', async () => {
    receiver.answer = (path) => (path === '/down' ? 503 : 200);
    const created = await subscribe('/down', ['node.created'], ['v2']);
    await s.request('POST', '/versions/v2/nodes', { body: { slug: 'never', translations: { en: { title: 'Never' } } } });
    const disabled = await eventually(async () => {
      const list = await s.request('GET', '/webhooks');
      const w = list.body.webhooks.find((x: { id: string }) => x.id === created.body.webhook.id);
      return w.enabled ? undefined : w;
    }, 15_000);
    assert.match(disabled.disabledReason, /failed \d+ time\(s\).*answered 503/);
    assert.ok(disabled.disabledAt);
    const log = (await s.request('GET', `/webhooks/${created.body.webhook.id}/deliveries`)).body;
    assert.equal(log.deliveries[0].outcome, 'given_up');
    assert.ok(log.deliveries.length >= 3, `${log.deliveries.length} attempts, backing off`);
    // Backoff: each wait at least doubles.
    const times = log.deliveries.map((d: { at: string }) => Date.parse(d.at)).reverse();
    const gaps = times.slice(1).map((t: number, i: number) => t - times[i]);
    assert.ok(gaps.at(-1)! >= gaps[0] * 2, `gaps ${gaps.join(', ')} grow`);
    // Disabled: nothing more is sent to it.
    const before = receiver.at('/down').length;
    await s.request('POST', '/versions/v2/nodes', { body: { slug: 'still-never', translations: { en: { title: 'Still never' } } } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.at('/down').length, before);
  });
});

describe('Webhooks: a version duplicated and deleted', () => {
  let s: TestServer;
  let receiver: Receiver;
  before(async () => {
    receiver = await new Receiver().start();
    s = await startTestServer({ env: { HELP_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
    await s.request('POST', '/versions', { body: { slug: 'v1', label: 'One', languages: ['en'] } });
    await s.request('POST', '/versions/v1/nodes', { body: { slug: 'intro', translations: { en: { title: 'Intro' } } } });
  });
  after(async () => {
    await s.close();
    await receiver.stop();
  });

  test('a duplicate announces its version and content; a deleted version is one version.updated', async () => {
    const all = ['version.published', 'version.updated', 'node.created', 'node.updated', 'node.deleted', 'translation.updated'];
    assert.equal((await s.request('POST', '/webhooks', { body: { url: `${receiver.url}/all`, events: all, versions: ['v9'] } })).status, 201);
    const copied = await s.request('POST', '/versions/v1/duplicate', { body: { slug: 'v9', label: 'Nine' } });
    assert.equal(copied.status, 200, copied.text);
    const created = (await receiver.waitFor('/all', 3)).map((r) => JSON.parse(r.body));
    assert.deepEqual(created.map((e) => [e.type, e.data.change ?? e.data.slugs]), [['version.updated', 'created'], ['node.created', ['intro']], ['translation.updated', ['intro']]]);
    assert.equal((await s.request('DELETE', '/versions/v9')).status, 200);
    const [deleted] = (await receiver.waitFor('/all', 4)).slice(3).map((r) => JSON.parse(r.body));
    assert.deepEqual(deleted.data, { version: 'v9', revision: s.git('rev-parse', 'main').trim(), change: 'deleted' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(receiver.at('/all').length, 4);
  });
});

describe('Webhooks without an allow-list', () => {
  let s: TestServer;
  let receiver: Receiver;
  before(async () => {
    receiver = await new Receiver().start();
    s = await startTestServer({ env: { HELP_WEBHOOK_RETRY_MS: '20', HELP_WEBHOOK_RETRY_WINDOW: '1' } });
    await s.request('POST', '/versions', { body: { slug: 'v1', label: 'One', languages: ['en'] } });
  });
  after(async () => {
    await s.close();
    await receiver.stop();
  });

  test('the receiver on 127.0.0.1 is refused at subscription', async () => {
    const res = await s.request('POST', '/webhooks', { body: { url: `${receiver.url}/x`, events: ['node.created'] } });
    assert.equal(res.status, 400);
    assert.match(res.body.error.message, /loopback address/);
  });

  test('a host name resolving to loopback is refused at delivery, on the address it resolves to; nothing reaches the receiver', async () => {
    const port = new URL(receiver.url).port;
    const created = await s.request('POST', '/webhooks', { body: { url: `http://localhost:${port}/rebound`, events: ['node.created'] } });
    assert.equal(created.status, 201, 'a host name is checked where it resolves, at each delivery');
    await s.request('POST', '/versions/v1/nodes', { body: { slug: 'a', translations: { en: { title: 'A' } } } });
    const log = await eventually(async () => {
      const res = (await s.request('GET', `/webhooks/${created.body.webhook.id}/deliveries`)).body;
      return res.deliveries.length > 0 ? res : undefined;
    });
    assert.equal(log.deliveries.at(-1).status, null);
    assert.match(log.deliveries.at(-1).error, /^refused: localhost resolves to (127\.0\.0\.1|::1) is a loopback address/);
    assert.equal(receiver.received.length, 0);
  });
});

describe('Webhooks for imports and publish requests', () => {
  let s: TestServer;
  let receiver: Receiver;
  let gh: FakeGitHub;
  before(async () => {
    receiver = await new Receiver().start();
    gh = await new FakeGitHub().start();
    s = await startTestServer({
      env: { HELP_WEBHOOK_ALLOW_HOSTS: '127.0.0.1', HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url, HELP_GITHUB_WEBHOOK_SECRET: 'webhook-secret-for-tests' },
    });
    await s.request('POST', '/versions', { body: { slug: 'v3', label: 'Three', languages: ['en'] } });
  });
  after(async () => {
    await s.close();
    await gh.stop();
    await receiver.stop();
  });

  test('import.completed names the version, the commit and what the import did', async () => {
    const sub = await s.request('POST', '/webhooks', { body: { url: `${receiver.url}/imports`, events: ['import.completed'] } });
    assert.equal(sub.status, 201);
    const imported = await s.request('POST', '/versions/v3/import', { body: { mode: 'merge', nodes: [{ slug: 'imported', kind: 'topic', translations: { en: { title: 'Imported' } } }] } });
    assert.equal(imported.status, 200, imported.text);
    const dry = await s.request('POST', '/versions/v3/import', { body: { mode: 'merge', dryRun: true, nodes: [{ slug: 'dry', kind: 'topic', translations: { en: { title: 'Dry' } } }] } });
    assert.equal(dry.status, 200, dry.text);
    const [r] = await receiver.waitFor('/imports', 1);
    assert.ok(verifySignature(sub.body.secret, r));
    assert.deepEqual(JSON.parse(r.body).data, { version: 'v3', revision: s.git('rev-parse', 'main').trim(), source: 'document', mode: 'merge', created: 1, updated: 0, deleted: 0 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(receiver.at('/imports').length, 1, 'a dry run sends nothing');
  });

  test('publish_request.updated follows a request from opening to closed', async () => {
    const sub = await s.request('POST', '/webhooks', { body: { url: `${receiver.url}/requests`, events: ['publish_request.updated'], versions: ['v3'] } });
    const opened = await s.request('POST', '/versions/v3/publish-request');
    assert.equal(opened.status, 201, opened.text);
    const id = opened.body.request.id;
    assert.equal((await s.request('DELETE', `/publish-requests/${id}`)).status, 200);
    const received = await receiver.waitFor('/requests', 3);
    const statuses = received.map((r) => JSON.parse(r.body).data).map((d) => [d.request, d.previousStatus, d.status]);
    assert.deepEqual(statuses, [[id, null, 'opening'], [id, 'opening', 'open'], [id, 'open', 'closed']]);
    for (const r of received) assert.ok(verifySignature(sub.body.secret, r));
    assert.equal(JSON.parse(received[0].body).data.version, 'v3');
  });
});

test('webhook settings: a bad value stops the start, naming the setting', () => {
  for (const [name, value] of [['HELP_WEBHOOK_ALLOW_HOSTS', 'http://hooks.internal'], ['HELP_WEBHOOK_ALLOW_HOSTS', '10.0.0.0/33'], ['HELP_WEBHOOK_RETRY_MS', '5'], ['HELP_WEBHOOK_RETRY_WINDOW', '1h'], ['HELP_WEBHOOK_TIMEOUT', '0']]) {
    assert.throws(() => loadConfig({ [name]: value }), (err: Error) => err instanceof ConfigError && err.message.startsWith(name), `${name}=${value}`);
  }
  assert.deepEqual(loadConfig({ HELP_WEBHOOK_ALLOW_HOSTS: 'Hooks.Internal, 10.20.0.0/16,::1' }).webhooks, { allowHosts: ['hooks.internal', '10.20.0.0/16', '::1'], retryMs: 30_000, retryWindowSeconds: 86_400, timeoutSeconds: 10 });
});
