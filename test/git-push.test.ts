import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { GitProcesses } from '../src/routes/git/processes.ts';
import { readPushCommands, PushRequestError } from '../src/routes/git/push-commands.ts';
import { assertError } from './helpers/assertions.ts';
import { Receiver } from './helpers/webhook-receiver.ts';
import { gitClient } from './helpers/git-client.ts';
import { createNode, createVersion, putTranslation, startTestServer, type TestServer } from './helpers/server.ts';

/** Whether the data repository holds an object (a refused push's objects are not kept). */
const holds = (s: TestServer, oid: string) => {
  try {
    s.git('cat-file', '-e', oid);
    return true;
  } catch {
    return false;
  }
};
/** What pushes being received hold: nothing once each has been answered. */
const quarantined = (s: TestServer) => (existsSync(join(s.gitdir, 'push-quarantine')) ? readdirSync(join(s.gitdir, 'push-quarantine')) : []);
const as = { 'user.name': 'Wanda Writer', 'user.email': 'wanda@example.org' };

/** A server, a git client, and the writer's credential for the server's repository. */
async function setUp(env: Record<string, string> = {}) {
  const s = await startTestServer({ env });
  const client = gitClient();
  const remote = `${s.url}/content.git`;
  const credential = (key: string) => client.storeCredential(remote, key);
  const writer = credential(s.key);
  const t = {
    s,
    client,
    remote,
    credential,
    writer,
    /** A fresh clone of the service's repository. */
    async clone(name: string, config = writer): Promise<string> {
      const dir = join(client.home, name);
      const res = await client.run(['clone', '-q', remote, dir], { config });
      assert.equal(res.code, 0, res.stderr);
      return dir;
    },
    async commitAll(dir: string, message: string): Promise<string> {
      assert.equal((await client.run(['-C', dir, 'add', '-A'])).code, 0);
      const res = await client.run(['-C', dir, 'commit', '-qm', message], { config: as });
      assert.equal(res.code, 0, res.stderr);
      return (await client.run(['-C', dir, 'rev-parse', 'HEAD'])).stdout.trim();
    },
    push: (dir: string, config = writer, ref = 'HEAD:main') => client.run(['-C', dir, 'push', 'origin', ref], { config }),
    close: async () => {
      await t.s.close();
      client.close();
    },
  };
  return t;
}

/** Appends a line to a file: an edit whatever the file holds. */
const edit = (path: string, line: string) => writeFileSync(path, `${readFileSync(path, 'utf8')}\n${line}\n`);

describe('git push to content.git', () => {
  let t: Awaited<ReturnType<typeof setUp>>;
  before(async () => {
    t = await setUp();
    await createVersion(t.s, 'v1');
    await createNode(t.s, 'v1', { slug: 'install' });
  });
  after(() => t.close());

  /** main and the quarantine as they are: what a refused push must leave as it found. */
  const state = () => ({ main: t.s.git('rev-parse', 'main').trim(), quarantined: quarantined(t.s) });

  test('a valid push is accepted: the API serves it, the commit is the writer\'s, history shows it, and pull is a fast-forward', async () => {
    const dir = await t.clone('accepted');
    const before = t.s.git('rev-parse', 'main').trim();
    edit(join(dir, 'v1', 'en', 'install.md'), 'Pushed line');
    const pushed = await t.commitAll(dir, 'Explain the install');
    const res = await t.push(dir);
    assert.equal(res.code, 0, res.stderr);
    const read = await t.s.request('GET', '/versions/v1/topics/install/translations/en');
    assert.equal(read.status, 200, read.text);
    assert.match(read.body.bodyMd, /^Body of install\n+Pushed line\n$/);
    // The writer's commit as it was made (id, author, message), then one commit of the service recording the stamps.
    const log = t.s.git('log', '--format=%H|%P|%an <%ae>|%s', '-3', 'main').trim().split('\n');
    const [stamps, writers] = log.map((l) => l.split('|'));
    assert.deepEqual(writers, [pushed, before, 'Wanda Writer <wanda@example.org>', 'Explain the install']);
    assert.equal(stamps[1], pushed);
    assert.match(stamps[3], /^Record the stamps of push/);
    assert.deepEqual(t.s.git('diff', '--name-only', pushed, 'main').trim().split('\n'), ['v1/.stamps/en.json']);
    const stamp = JSON.parse(t.s.git('show', 'main:v1/.stamps/en.json')).install;
    assert.equal(read.body.updatedAt, stamp);
    assert.ok(Date.parse(stamp) > Date.now() - 60_000, 'the changed translation is stamped with the time of the push');
    t.s.git('fsck', '--strict', '--no-dangling');
    assert.deepEqual(quarantined(t.s), []);
    const pull = await t.client.run(['-C', dir, 'pull', '--ff-only', '-q'], { config: t.writer });
    assert.equal(pull.code, 0, pull.stderr);
    assert.equal((await t.client.run(['-C', dir, 'rev-parse', 'HEAD'])).stdout.trim(), t.s.git('rev-parse', 'main').trim());
    const history = await t.s.request('GET', '/versions/v1/history');
    assert.equal(history.status, 200, history.text);
    const revisions = history.body.history.map((c: { revision: string }) => c.revision);
    assert.ok(revisions.includes(pushed), `history lists the pushed commit: ${history.text.slice(0, 500)}`);
    const mine = history.body.history.find((c: { revision: string }) => c.revision === pushed);
    assert.equal(mine.author, 'Wanda Writer');
    assert.equal(mine.message, 'Explain the install');
  });

  test('the history of a pushed change is the same as recorded and as read back from git log', async () => {
    const paths = ['/versions/v1/nodes/install/history?language=en', '/versions/v1/history?limit=50'];
    const live = await Promise.all(paths.map(async (path) => (await t.s.request('GET', path)).body));
    const entries = live[0].history.filter((e: { language: string | null }) => e.language === 'en');
    assert.equal(entries[0].message, 'Explain the install', 'the writer\'s commit is the last change of the text');
    // The same data directory without the history file: the index is read from git log.
    await t.s.service.close();
    rmSync(join(t.s.dataDir, 'history.jsonl'));
    t.s = await startTestServer({ dataDir: t.s.dataDir, port: Number(new URL(t.s.url).port) });
    for (const [i, path] of paths.entries()) {
      let res = await t.s.request('GET', path);
      for (let tries = 0; res.status === 503 && tries < 100; tries++) res = await new Promise((r) => setTimeout(r, 100)).then(() => t.s.request('GET', path));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, live[i], path);
    }
  });

  test('a push of several commits that adds a version keeps each commit and the status its version.json gives', async () => {
    const dir = await t.clone('new-version');
    mkdirSync(join(dir, 'v3', 'en'), { recursive: true });
    writeFileSync(join(dir, 'v3', 'version.json'), `${JSON.stringify({ label: 'Three', status: 'draft', languages: ['en'], nav: ['intro'] }, null, 2)}\n`);
    writeFileSync(join(dir, 'v3', 'en', 'intro.md'), '---\ntitle: Intro\n---\nFirst draft.\n');
    const first = await t.commitAll(dir, 'Start v3');
    edit(join(dir, 'v3', 'en', 'intro.md'), 'Second thoughts.');
    const second = await t.commitAll(dir, 'Revise the intro of v3');
    // Asked for protocol v1 (the others push with git's default, v0 for a push over HTTP): the service answers in v0, which git takes.
    const res = await t.push(dir, { ...t.writer, 'protocol.version': '1' });
    assert.equal(res.code, 0, res.stderr);
    const version = await t.s.request('GET', '/versions/v3');
    assert.equal(version.status, 200, version.text);
    assert.equal(version.body.status, 'draft');
    const intro = await t.s.request('GET', '/versions/v3/topics/intro/translations/en');
    assert.match(intro.body.bodyMd, /First draft\.\n+Second thoughts\.\n$/);
    assert.equal(t.s.git('rev-parse', 'main~1').trim(), second);
    assert.equal(t.s.git('rev-parse', 'main~2').trim(), first);
    const history = await t.s.request('GET', '/versions/v3/history');
    const revisions = history.body.history.map((c: { revision: string }) => c.revision);
    assert.ok(revisions.includes(first) && revisions.includes(second), history.text.slice(0, 500));
  });

  test('a push with a read-only key is refused and changes nothing', async () => {
    const reader = await t.s.createKey({ name: 'reader', scopes: 'help:read' });
    const dir = await t.clone('read-only', t.credential(reader));
    edit(join(dir, 'v1', 'en', 'install.md'), 'Reader body');
    await t.commitAll(dir, 'Not allowed');
    const was = state();
    const res = await t.push(dir, t.credential(reader));
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /remote: .*lacks the scope help:write/);
    assert.deepEqual(state(), was);
  });

  test('a push that fails validation is refused whole, each problem shown as path:line: message', async () => {
    const dir = await t.clone('invalid');
    const install = join(dir, 'v1', 'en', 'install.md');
    writeFileSync(install, '---\ntitle: Install\nsummary: [unclosed\n---\nText\n');
    const versionFile = join(dir, 'v1', 'version.json');
    const doc = JSON.parse(readFileSync(versionFile, 'utf8'));
    doc.nav.push('ghost');
    writeFileSync(versionFile, `${JSON.stringify(doc, null, 2)}\n`);
    const broken = await t.commitAll(dir, 'Break things');
    const was = state();
    const res = await t.push(dir);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /remote: v1\/en\/install\.md:\d+: /);
    assert.match(res.stderr, /remote: v1\/version\.json(:\d+)?: .*ghost/);
    assert.match(res.stderr, /! \[remote rejected\] HEAD -> main \(\d+ problem\(s\) in the push \(listed above/);
    assert.deepEqual(state(), was, 'main unchanged, the quarantine removed');
    assert.equal(holds(t.s, broken), false, 'the refused commit is not kept in the repository');
  });

  test('a push after another write is refused as not a fast-forward, with a hint to pull', async () => {
    const dir = await t.clone('behind');
    assert.equal((await putTranslation(t.s, 'v1', 'install', 'en', { title: 'Install', bodyMd: 'Written through the API.\n' })).status, 200);
    edit(join(dir, 'v1', 'en', 'install.md'), 'Late body');
    await t.commitAll(dir, 'Too late');
    const was = state();
    const res = await t.push(dir);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /rejected/);
    assert.match(res.stderr, /git pull/);
    assert.deepEqual(state(), was);
    // The service checks it too, for a client that does not: a forced push is refused the same way.
    const forced = await t.client.run(['-C', dir, 'push', '--force', 'origin', 'HEAD:main'], { config: t.writer });
    assert.notEqual(forced.code, 0);
    assert.match(forced.stderr, /remote rejected.*(non-fast-forward|moved on).*git pull/);
    assert.deepEqual(state(), was);
  });

  test('a push to another ref, a delete of main or a hand edit of .stamps is refused', async () => {
    const dir = await t.clone('other-ref');
    edit(join(dir, 'v1', 'en', 'install.md'), 'Branch body');
    await t.commitAll(dir, 'On a branch');
    const was = state();
    const branch = await t.push(dir, t.writer, 'HEAD:refs/heads/feature');
    assert.notEqual(branch.code, 0);
    assert.match(branch.stderr, /remote rejected\] HEAD -> feature \(only refs\/heads\/main is taken/);
    const tag = await t.client.run(['-C', dir, 'tag', 'v1.0']);
    assert.equal(tag.code, 0);
    const tagged = await t.push(dir, t.writer, 'refs/tags/v1.0');
    assert.notEqual(tagged.code, 0);
    const deleted = await t.push(dir, t.writer, ':main');
    assert.notEqual(deleted.code, 0);
    assert.deepEqual(state(), was);
    const stamps = await t.clone('stamps');
    const stampsFile = join(stamps, 'v1', '.stamps', 'en.json');
    writeFileSync(stampsFile, readFileSync(stampsFile, 'utf8').replace('"install": "', '"install": "2'));
    await t.commitAll(stamps, 'Hand-edit the stamps');
    const res = await t.push(stamps);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /remote: v1\/\.stamps\/en\.json: \.stamps\/ is the service's/);
    assert.deepEqual(state(), was);
  });

  test('the service checks that main has not moved, for a client that sends a stale old id itself', async () => {
    const head = t.s.git('rev-parse', 'main').trim();
    const body = Buffer.concat([pkt(`${'0'.repeat(40)} ${head} refs/heads/main\0report-status side-band-64k\n`), Buffer.from('0000')]);
    const res = await fetch(`${t.remote}/git-receive-pack`, { method: 'POST', headers: { authorization: `Bearer ${t.s.key}`, 'content-type': 'application/x-git-receive-pack-request', 'user-agent': 'git/2.39' }, body });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-git-receive-pack-result');
    const text = Buffer.from(await res.arrayBuffer()).toString('latin1');
    assert.match(text, /unpack ok\n/);
    assert.match(text, /ng refs\/heads\/main main has moved on since you last pulled .*git pull/);
    assert.equal(t.s.git('rev-parse', 'main').trim(), head);
  });

  test('a body that is no push is 400 with the JSON envelope, never a 500', async () => {
    for (const raw of ['zzzz', 'ffff', '0003', `0032${'0'.repeat(40)} x\n`, '002dshallow 0000000000000000000000000000000000000000']) {
      // Not TestServer.request, which checks answers against openapi.json: content.git is not in it.
      const res = await fetch(`${t.remote}/git-receive-pack`, { method: 'POST', headers: { authorization: `Bearer ${t.s.key}`, 'content-type': 'application/x-git-receive-pack-request' }, body: raw });
      const text = await res.text();
      assertError({ status: res.status, body: JSON.parse(text), text }, 400, 'validation_failed', { field: 'body' });
    }
    assert.deepEqual(quarantined(t.s), []);
  });

  test('a file at the root or a folder that is no version slug is refused', async () => {
    const dir = await t.clone('root-file');
    writeFileSync(join(dir, 'README.md'), 'Notes\n');
    await t.commitAll(dir, 'Add notes');
    const was = state();
    const res = await t.push(dir);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /remote: README\.md: only version folders/);
    assert.deepEqual(state(), was);
  });
});

describe('git push with the lock on published versions', () => {
  let t: Awaited<ReturnType<typeof setUp>>;
  let publisher: string;
  before(async () => {
    t = await setUp({ HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: 'acme/help', HELP_GITHUB_TOKEN: 'ghp_test', HELP_GITHUB_API_URL: 'http://127.0.0.1:9' });
    publisher = await t.s.createKey({ name: 'publisher', publisher: true });
    await createVersion(t.s, 'v2');
    await createNode(t.s, 'v2', { slug: 'install' });
    const published = await t.s.request('PATCH', '/versions/v2', { body: { status: 'published' }, key: publisher });
    assert.equal(published.status, 200, published.text);
  });
  after(() => t.close());

  test('a push changing a published version needs a publisher key', async () => {
    const dir = await t.clone('locked');
    edit(join(dir, 'v2', 'en', 'install.md'), 'Changed without review');
    await t.commitAll(dir, 'Change a published version');
    const main = t.s.git('rev-parse', 'main').trim();
    const res = await t.push(dir);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /remote: v2\/: Version "v2" is published/);
    assert.equal(t.s.git('rev-parse', 'main').trim(), main);
    const byPublisher = await t.push(dir, t.credential(publisher));
    assert.equal(byPublisher.code, 0, byPublisher.stderr);
    const read = await t.s.request('GET', '/versions/v2/topics/install/translations/en');
    assert.match(read.body.bodyMd, /Changed without review\n$/);
  });
});

/** A pkt-line of git's protocol. */
function pkt(text: string): Buffer {
  const body = Buffer.from(text, 'latin1');
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
}

const ID_A = 'a'.repeat(40);
const ID_B = 'b'.repeat(40);

describe('Pushes in the caps on git requests', () => {
  test('a push being received takes a slot of the caps until it is answered', () => {
    const processes = new GitProcesses({ max: 2, maxPerAddress: 1, timeoutMs: 60_000 });
    const first = processes.claim('127.0.0.1');
    assert.throws(() => processes.claim('127.0.0.1'), (err: unknown) => err instanceof AppError && err.code === 'too_many_requests' && err.data.limit === 'git_concurrency_per_address');
    const other = processes.claim('127.0.0.2');
    assert.throws(() => processes.claim('127.0.0.3'), (err: unknown) => err instanceof AppError && err.data.limit === 'git_concurrency');
    first.release();
    first.release();
    processes.claim('127.0.0.1').release();
    other.release();
    assert.equal(first.signal.aborted, false);
  });
});

describe('The push command parser', () => {
  const parse = (...chunks: Array<string | Buffer>) => readPushCommands(Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c, 'latin1') : c))));
  const refused = async (pattern: RegExp, ...chunks: Array<string | Buffer>) => {
    await assert.rejects(parse(...chunks), (err: unknown) => err instanceof PushRequestError && pattern.test(err.message));
  };

  test('a lone flush-pkt (git\'s probe before a large push) is a request of no commands', async () => {
    assert.deepEqual((await parse('0000')).commands, []);
  });

  test('reads the commands, the capabilities after the NUL, and leaves the pack unread', async () => {
    const first = pkt(`${ID_A} ${ID_B} refs/heads/main\0report-status side-band-64k quiet\n`);
    // Split across chunks anywhere, as a network delivers it.
    const all = Buffer.concat([first, pkt(`${ID_A} ${ID_B} refs/tags/x\n`), Buffer.from('0000PACK-bytes')]);
    const request = await parse(all.subarray(0, 3), all.subarray(3, 50), all.subarray(50));
    assert.deepEqual(request.commands, [
      { old: ID_A, new: ID_B, ref: 'refs/heads/main' },
      { old: ID_A, new: ID_B, ref: 'refs/tags/x' },
    ]);
    assert.deepEqual([...request.capabilities], ['report-status', 'side-band-64k', 'quiet']);
    const rest: Buffer[] = [];
    for await (const chunk of request.pack) rest.push(chunk as Buffer);
    assert.equal(Buffer.concat(rest).toString(), 'PACK-bytes');
  });

  test('hostile input gets a clear error, never a wait or an unbounded buffer', async () => {
    await refused(/four lowercase hex digits/, 'zzzz');
    await refused(/four lowercase hex digits/, 'FFFF');
    await refused(/more than git's largest/, 'ffff');
    await refused(/not a command/, '0001');
    await refused(/ended inside a pkt-line length/, '00');
    await refused(/ended inside a pkt-line/, '0100abc');
    await refused(/end with a flush-pkt/, pkt(`${ID_A} ${ID_B} refs/heads/main\n`));
    await refused(/40 lowercase hex digits/, pkt(`${ID_A.slice(1)}g ${ID_B} refs/heads/main\n`), '0000');
    await refused(/40 lowercase hex digits/, pkt(`${ID_A} ${ID_B}\n`), '0000');
    await refused(/40 lowercase hex digits/, pkt(`${ID_A} ${ID_B} refs/heads/a b\n`), '0000');
    await refused(/shallow clone/, pkt(`shallow ${ID_A}\n`), '0000');
    await refused(/more than 100 ref updates/, ...Array.from({ length: 101 }, () => pkt(`${ID_A} ${ID_B} refs/heads/main\n`)), '0000');
  });
});

describe('git push: webhooks and limits', () => {
  let t: Awaited<ReturnType<typeof setUp>>;
  let receiver: Receiver;
  before(async () => {
    receiver = await new Receiver().start();
    t = await setUp({ HELP_GIT_PUSH_MAX_MB: '1', HELP_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    await createVersion(t.s, 'v1');
    await createNode(t.s, 'v1', { slug: 'install' });
  });
  after(async () => {
    await t.close();
    await receiver.stop();
  });

  test('an accepted push sends the webhook events of what it changed, as an import does', async () => {
    const subscribed = await t.s.request('POST', '/webhooks', { body: { url: `${receiver.url}/push`, events: ['translation.updated', 'node.created', 'import.completed'] } });
    assert.equal(subscribed.status, 201, subscribed.text);
    const dir = await t.clone('webhooks');
    edit(join(dir, 'v1', 'en', 'install.md'), 'A pushed line.');
    const doc = JSON.parse(readFileSync(join(dir, 'v1', 'version.json'), 'utf8'));
    doc.nav.push('upgrade');
    writeFileSync(join(dir, 'v1', 'version.json'), `${JSON.stringify(doc, null, 2)}\n`);
    writeFileSync(join(dir, 'v1', 'en', 'upgrade.md'), '---\ntitle: Upgrade\n---\nHow to upgrade.\n');
    const pushed = await t.commitAll(dir, 'Add the upgrade page');
    const res = await t.push(dir);
    assert.equal(res.code, 0, res.stderr);
    const events = (await receiver.waitFor('/push', 3)).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
    const byType = new Map(events.map((e) => [e.type, e.data]));
    assert.deepEqual(byType.get('node.created')?.slugs, ['upgrade']);
    assert.deepEqual([...(byType.get('translation.updated')?.slugs as string[])].sort(), ['install', 'upgrade']);
    const completed = byType.get('import.completed')!;
    assert.equal(completed.source, 'git-push');
    assert.equal(completed.commit, pushed);
    assert.equal(completed.revision, t.s.git('rev-parse', 'main').trim(), 'the events name the commit whose stamps match');
  });

  test('what a push brought is there after a restart, read from the repository', async () => {
    const updatedAt = (await t.s.request('GET', '/versions/v1/topics/upgrade/translations/en')).body.updatedAt;
    t.s = await t.s.restart({ samePort: true });
    const read = await t.s.request('GET', '/versions/v1/topics/upgrade/translations/en');
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.bodyMd, 'How to upgrade.\n');
    assert.equal(read.body.updatedAt, updatedAt);
    t.s.git('fsck', '--strict', '--no-dangling');
  });

  test('a read replica takes no push: it names its primary\'s repository', async () => {
    const replicaKey = await t.s.createKey({ name: 'replica', scopes: 'help:read' });
    const replica = await startTestServer({ env: { HELP_REPLICA_OF: t.s.url, HELP_REPLICA_KEY: replicaKey, HELP_REPLICA_POLL_MS: '100' } });
    try {
      const res = await fetch(`${replica.url}/content.git/info/refs?service=git-receive-pack`, { headers: { authorization: `Bearer ${t.s.key}` } });
      const text = await res.text();
      assertError({ status: res.status, body: JSON.parse(text), text }, 403, 'push_not_accepted', { primary: `${t.s.url}/content.git` });
    } finally {
      await replica.close();
    }
  });

  test('a pack larger than HELP_GIT_PUSH_MAX_MB is refused whole and nothing is kept', async () => {
    const dir = await t.clone('large');
    edit(join(dir, 'v1', 'en', 'install.md'), randomBytes(1_500_000).toString('base64'));
    const large = await t.commitAll(dir, 'Too large');
    const main = t.s.git('rev-parse', 'main').trim();
    const res = await t.push(dir);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /larger than the 1 MB a push may send \(HELP_GIT_PUSH_MAX_MB\)/);
    assert.equal(t.s.git('rev-parse', 'main').trim(), main);
    assert.equal(holds(t.s, large), false);
    assert.deepEqual(quarantined(t.s), []);
  });
});
