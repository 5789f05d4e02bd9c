import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertError, isIso } from './helpers/assertions.ts';
import { PROJECT, runProcess, type Run } from './helpers/process.ts';
import { createNode, createVersion, startTestServer, waitForStatus, type TestServer } from './helpers/server.ts';

describe('Authentication', () => {
  let s: TestServer;
  let reader: string;
  let publisher: string;

  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'pub', { status: 'published' });
    await createNode(s, 'pub', { slug: 'intro', translations: { en: { title: 'Intro', bodyMd: 'Hello.\n' }, de: { title: 'Einleitung' } } });
    await createVersion(s, 'draft');
    await createNode(s, 'draft', { slug: 'secret', translations: { en: { title: 'Secret', bodyMd: 'Not yet.\n' } } });
    reader = await s.createKey({ name: 'reader', scopes: 'help:read' });
    publisher = await s.createKey({ name: 'publisher', publisher: true });
    await waitForStatus(s, reader, 200);
    await waitForStatus(s, publisher, 200);
  });
  after(() => s.close());

  /** One request of every kind of write, each valid with the writer key. */
  const WRITES: Array<[string, string, unknown]> = [
    ['POST', '/versions', { slug: 'auth-new' }],
    ['PATCH', '/versions/draft', { label: 'Changed' }],
    ['DELETE', '/versions/draft', undefined],
    ['POST', '/versions/draft/duplicate', { slug: 'auth-copy' }],
    ['POST', '/versions/draft/nodes', { slug: 'auth-node', translations: { en: { title: 'New' } } }],
    ['PATCH', '/versions/draft/nodes/secret', { translations: { en: { title: 'Changed' } } }],
    ['DELETE', '/versions/draft/nodes/secret', undefined],
    ['PUT', '/versions/draft/topics/secret/translations/en', { title: 'Changed' }],
    ['DELETE', '/versions/pub/topics/intro/translations/de', undefined],
    ['POST', '/versions/draft/reorder', { items: [{ slug: 'secret', parentSlug: null, sortOrder: 0 }] }],
  ];

  describe('missing credential', () => {
    for (const [method, path, body] of WRITES) {
      test(`${method} ${path} without a key is 401 with WWW-Authenticate and writes nothing`, async () => {
        const commits = s.commitCount();
        const res = await s.request(method, path, { key: null, body });
        assertError(res, 401, 'unauthorized');
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/);
        assert.equal(s.commitCount(), commits);
      });
    }

    test('GET /whoami without a key is 401 with WWW-Authenticate', async () => {
      const res = await s.request('GET', '/whoami', { key: null });
      assertError(res, 401, 'unauthorized');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/);
    });

    test('public reads of published content need no key', async () => {
      for (const path of ['/versions', '/versions/pub/tree', '/versions/pub/topics/intro', '/versions/pub/nodes', '/versions/pub/topics/intro/translations/en']) {
        const res = await s.request('GET', path, { key: null });
        assert.equal(res.status, 200, `${path}: ${res.text}`);
        assert.equal(res.headers.get('www-authenticate'), null);
      }
    });
  });

  describe('invalid credential', () => {
    const malformed = ['Basic d3JpdGVyOnNlY3JldA==', 'Bearer', 'Bearer ', 'Token hcs_abcdefgh', 'Bearer two words', 'hcs_no_scheme'];
    for (const header of malformed) {
      test(`a malformed Authorization header ${JSON.stringify(header)} is 401 even on a public read`, async () => {
        const res = await s.request('GET', '/versions', { key: null, headers: { authorization: header } });
        assertError(res, 401, 'unauthorized');
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/);
      });
    }

    test('an unknown key is 401 on public reads, writes and whoami', async () => {
      for (const key of ['hcs_thisKeyWasNeverIssuedToAnyone123', 'not-a-help-key', `${'x'}${'y'.repeat(40)}`]) {
        for (const path of ['/versions', '/versions/pub/tree', '/versions/pub/topics/intro', '/whoami']) {
          const res = await s.request('GET', path, { key });
          assertError(res, 401, 'unauthorized');
          assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/);
        }
        const commits = s.commitCount();
        assertError(await s.request('POST', '/versions', { key, body: { slug: 'auth-unknown' } }), 401, 'unauthorized');
        assert.equal(s.commitCount(), commits);
      }
    });

    test('a key with a character changed is 401', async () => {
      const last = s.key.at(-1) === 'A' ? 'B' : 'A';
      const res = await s.request('GET', '/versions', { key: `${s.key.slice(0, -1)}${last}` });
      assertError(res, 401, 'unauthorized');
    });

    test('the Bearer scheme is case-insensitive', async () => {
      const res = await s.request('GET', '/whoami', { key: null, headers: { authorization: `bearer ${s.key}` } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.keyName, 'writer');
    });

    test('error answers never echo the presented key', async () => {
      const key = 'hcs_wrongButSecretLooking0123456789';
      const res = await s.request('GET', '/versions', { key });
      assert.equal(res.status, 401);
      assert.ok(!res.text.includes(key));
    });
  });

  describe('GET /whoami', () => {
    test('describes the writer key', async () => {
      const res = await s.request('GET', '/whoami');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['canWritePublished', 'createdAt', 'keyName', 'keyPrefix', 'kind', 'lastUsedAt', 'publishViaPr', 'scopes']);
      assert.equal(res.body.kind, 'api_key');
      assert.equal(res.body.keyName, 'writer');
      assert.ok(res.body.keyPrefix.startsWith('hcs_'), res.body.keyPrefix);
      assert.ok(s.key.startsWith(res.body.keyPrefix), 'keyPrefix is a prefix of the key');
      assert.ok(res.body.keyPrefix.length < s.key.length - 8, 'keyPrefix is much shorter than the key');
      assert.ok(isIso(res.body.createdAt), res.body.createdAt);
      assert.ok(isIso(res.body.lastUsedAt), String(res.body.lastUsedAt));
      assert.ok(res.body.lastUsedAt >= res.body.createdAt);
      assert.deepEqual([...res.body.scopes].sort(), ['help:read', 'help:write']);
      assert.equal(res.body.canWritePublished, false);
      assert.equal(res.body.publishViaPr, false);
      assert.ok(!res.text.includes(s.key), 'the key itself is not in the answer');
    });

    test('lastUsedAt follows use of the key', async () => {
      const first = (await s.request('GET', '/whoami')).body.lastUsedAt as string;
      await new Promise((r) => setTimeout(r, 5));
      const second = (await s.request('GET', '/whoami')).body.lastUsedAt as string;
      assert.ok(second > first, `${second} after ${first}`);
    });

    test('a publisher key shows canWritePublished true', async () => {
      const res = await s.request('GET', '/whoami', { key: publisher });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.keyName, 'publisher');
      assert.equal(res.body.canWritePublished, true);
      assert.equal(res.body.publishViaPr, false);
      assert.ok(publisher.startsWith(res.body.keyPrefix));
    });

    test('a help:read-only key shows only that scope', async () => {
      const res = await s.request('GET', '/whoami', { key: reader });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.keyName, 'reader');
      assert.deepEqual(res.body.scopes, ['help:read']);
      assert.equal(res.body.canWritePublished, false);
    });
  });

  describe('a help:read-only key', () => {
    for (const [method, path, body] of WRITES) {
      test(`${method} ${path} is 403 insufficient_scope and writes nothing`, async () => {
        const commits = s.commitCount();
        const res = await s.request(method, path, { key: reader, body });
        assertError(res, 403, 'insufficient_scope');
        // RFC 6750 §3.1: the challenge says which scope to ask for (clients re-authorize from it).
        assert.match(res.headers.get('www-authenticate')!, /^Bearer .*error="insufficient_scope".*scope="help:read help:write"/);
        assert.equal(s.commitCount(), commits);
      });
    }

    test('can read drafts: listed, tree, topic, nodes with bodies, translation', async () => {
      const list = (await s.request('GET', '/versions', { key: reader })).body as Array<{ slug: string; status: string }>;
      assert.ok(list.some((v) => v.slug === 'draft' && v.status === 'draft'));
      const tree = await s.request('GET', '/versions/draft/tree', { key: reader });
      assert.equal(tree.status, 200, tree.text);
      const topic = await s.request('GET', '/versions/draft/topics/secret', { key: reader });
      assert.equal(topic.status, 200);
      assert.equal(topic.body.versionStatus, 'draft');
      const nodes = await s.request('GET', '/versions/draft/nodes?include=bodies', { key: reader });
      assert.equal(nodes.status, 200);
      assert.equal(nodes.body.nodes[0].translations.en.bodyMd, 'Not yet.\n');
      const translation = await s.request('GET', '/versions/draft/topics/secret/translations/en', { key: reader });
      assert.equal(translation.status, 200);
    });

    test('anonymous callers cannot read the same draft', async () => {
      assertError(await s.request('GET', '/versions/draft/tree', { key: null }), 404, 'not_found', { resource: 'version' });
      const list = (await s.request('GET', '/versions', { key: null })).body as Array<{ slug: string }>;
      assert.ok(!list.some((v) => v.slug === 'draft'));
    });
  });

  test('every write in the list succeeds with the writer key (the refusals above were about the key)', async () => {
    for (const [method, path, body] of WRITES) {
      const res = await s.request(method, path, { body });
      assert.equal(res.status, 200, `${method} ${path}: ${res.text}`);
      // Recreate what the delete removed so later rows still apply.
      if (method === 'DELETE' && path === '/versions/draft') {
        await createVersion(s, 'draft');
        await createNode(s, 'draft', { slug: 'secret' });
      }
      if (method === 'DELETE' && path === '/versions/draft/nodes/secret') await createNode(s, 'draft', { slug: 'secret' });
    }
  });

  describe('keys CLI', () => {
    let cliKey: string;

    test('keys create --json prints exactly one JSON object with the new key', async () => {
      const r = await cli(s, ['keys', 'create', '--name', 'cli-key', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.split('\n').filter((l) => l !== '');
      assert.equal(lines.length, 1, `one line of output: ${JSON.stringify(r.stdout)}`);
      const out = JSON.parse(r.stdout) as Record<string, unknown>;
      assert.equal(typeof out, 'object');
      assert.ok(!Array.isArray(out));
      assert.equal(out.name, 'cli-key');
      assert.equal(typeof out.key, 'string');
      cliKey = out.key as string;
      assert.match(cliKey, /^hcs_[A-Za-z0-9_-]{20,}$/);
      assert.ok(cliKey.startsWith(out.prefix as string));
      assert.deepEqual([...(out.scopes as string[])].sort(), ['help:read', 'help:write']);
      assert.equal(out.canWritePublished, false);
      assert.ok(isIso(out.createdAt), String(out.createdAt));
    });

    test('the running server accepts the new key within 2 s', async () => {
      await waitForStatus(s, cliKey, 200);
      const res = await s.request('GET', '/whoami', { key: cliKey });
      assert.equal(res.body.keyName, 'cli-key');
      assert.ok(cliKey.startsWith(res.body.keyPrefix));
      const write = await s.request('POST', '/versions', { key: cliKey, body: { slug: 'by-cli-key' } });
      assert.equal(write.status, 200, write.text);
      assert.equal(s.git('log', '-1', '--format=%an').trim(), 'cli-key');
    });

    test('keys list --json shows the key without the secret or its hash', async () => {
      const r = await cli(s, ['keys', 'list', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const list = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
      assert.ok(Array.isArray(list));
      const row = list.find((k) => k.name === 'cli-key');
      assert.ok(row, r.stdout);
      assert.ok(cliKey.startsWith(row.prefix as string));
      assert.deepEqual([...(row.scopes as string[])].sort(), ['help:read', 'help:write']);
      assert.ok(!('key' in row) && !('hash' in row) && !('secret' in row), JSON.stringify(row));
      assert.ok(!r.stdout.includes(cliKey), 'the secret is not listed');
      const stored = JSON.parse(readFileSync(join(s.dataDir, 'keys.json'), 'utf8')) as { keys: Array<{ name: string; hash: string }> };
      for (const k of stored.keys) assert.ok(!r.stdout.includes(k.hash), `the hash of ${k.name} is not listed`);
      for (const name of ['writer', 'reader', 'publisher']) assert.ok(list.some((k) => k.name === name), name);
    });

    test('the key secret is never stored in the data directory or the content repository', async () => {
      const secrets = [cliKey, s.key, reader, publisher];
      const keysJson = readFileSync(join(s.dataDir, 'keys.json'), 'utf8');
      for (const secret of secrets) {
        assert.ok(!keysJson.includes(secret), 'keys.json holds no secret');
        assert.ok(!keysJson.includes(secret.slice(-16)), 'keys.json holds no part of a secret beyond its prefix');
      }
      for (const file of filesUnder(s.dataDir)) {
        const text = readFileSync(file, 'latin1');
        for (const secret of secrets) assert.ok(!text.includes(secret), `${file} holds a key secret`);
      }
      const history = s.git('log', '-p', '--all', '--format=%H %an <%ae> %cn <%ce>%n%B');
      assert.ok(history.includes('by-cli-key'), 'the history was read');
      for (const secret of secrets) assert.ok(!history.includes(secret), 'git history holds no key secret');
      const allFiles = gitGrep(s, 'hcs_', 'main');
      assert.equal(allFiles, '', `files at main mentioning hcs_: ${allFiles}`);
      const commits = s.git('rev-list', '--all').trim().split('\n');
      assert.ok(commits.length > 5);
      for (const commit of commits) {
        for (const secret of secrets) assert.equal(gitGrep(s, secret, commit), '', `commit ${commit} holds a key secret`);
      }
    });

    test('keys revoke makes the running server answer 401 within 2 s', async () => {
      const r = await cli(s, ['keys', 'revoke', '--name', 'cli-key']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /cli-key/);
      await waitForStatus(s, cliKey, 401);
      assertError(await s.request('GET', '/versions', { key: cliKey }), 401, 'unauthorized');
      const commits = s.commitCount();
      assertError(await s.request('POST', '/versions', { key: cliKey, body: { slug: 'after-revoke' } }), 401, 'unauthorized');
      assert.equal(s.commitCount(), commits);
      const list = JSON.parse((await cli(s, ['keys', 'list', '--json'])).stdout) as Array<{ name: string }>;
      assert.ok(!list.some((k) => k.name === 'cli-key'));
      assert.equal((await s.request('GET', '/whoami')).status, 200, 'other keys still work');
    });

    test('keys create with --publisher and --scopes issues a key the server describes accordingly', async () => {
      const r = await cli(s, ['keys', 'create', '--name', 'cli-pub', '--publisher', '--scopes', 'help:read', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { key: string; scopes: string[]; canWritePublished: boolean };
      assert.deepEqual(out.scopes, ['help:read']);
      assert.equal(out.canWritePublished, true);
      await waitForStatus(s, out.key, 200);
      const who = (await s.request('GET', '/whoami', { key: out.key })).body;
      assert.deepEqual(who.scopes, ['help:read']);
      assert.equal(who.canWritePublished, true);
      assertError(await s.request('POST', '/versions', { key: out.key, body: { slug: 'cli-pub-write' } }), 403, 'insufficient_scope');
    });

    // Exit status 2: the command line itself is wrong; 1: a correct command that could not be done.
    const REFUSALS: Array<[string, string[], RegExp, 1 | 2]> = [
      ['keys create without --name', ['keys', 'create', '--json'], /--name/, 2],
      ['keys create with an unknown scope', ['keys', 'create', '--name', 'bad-scope', '--scopes', 'help:admin', '--json'], /help:admin/, 2],
      ['keys create with an invalid name', ['keys', 'create', '--name', '-bad name', '--json'], /--name/, 2],
      ['keys create with a name that exists', ['keys', 'create', '--name', 'reader', '--json'], /reader/, 1],
      ['keys revoke without --name', ['keys', 'revoke'], /--name/, 2],
      ['keys revoke of an unknown name', ['keys', 'revoke', '--name', 'nobody'], /nobody/, 1],
      ['an unknown keys command', ['keys', 'rotate', '--json'], /^Unknown command "keys rotate"/, 2],
      ['an unknown command', ['rotate-keys'], /^Unknown command "rotate-keys"\n\nUsage:/, 2],
      ['no command', [], /^No command given\n\nUsage:/, 2],
      ['an unknown option', ['keys', 'create', '--name', 'opt', '--colour', 'blue', '--json'], /colour/, 2],
      ['an option another command takes', ['keys', 'create', '--name', 'with-role', '--role', 'admin', '--json'], /^Error: keys create does not take --role \(it takes --name, --publisher, --scopes, --json, --data-dir\)/, 2],
      ['a word after the command', ['keys', 'revoke', 'reader'], /^Error: keys revoke takes no argument "reader"/, 2],
      ['keys list in a data directory that does not exist', ['keys', 'list', '--data-dir', 'no/such/dir'], /^Error: No data directory at .*no\/such\/dir/, 1],
    ];
    for (const [what, args, message, code] of REFUSALS) {
      test(`${what} exits ${code} with a message on stderr and nothing on stdout`, async () => {
        const keysBefore = readFileSync(join(s.dataDir, 'keys.json'), 'utf8');
        const r = await cli(s, args);
        assert.equal(r.code, code, r.stderr);
        assert.equal(r.stdout, '');
        assert.match(r.stderr, message);
        assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
        assert.equal(readFileSync(join(s.dataDir, 'keys.json'), 'utf8'), keysBefore, 'keys.json is unchanged');
      });
    }
    test('a key made in a folder that is not the service\'s data directory is made with a note, and refused saying where keys live', async () => {
      const elsewhere = join(s.dataDir, 'typo-dir');
      const r = await cli(s, ['keys', 'create', '--name', 'stray', '--json', '--data-dir', elsewhere]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).name, 'stray', 'stdout stays one JSON object');
      assert.match(r.stderr, /^Note: .*typo-dir holds no content repository yet\. This works only for a service started with HELP_DATA_DIR=.*typo-dir/);
      const res = await s.request('GET', '/whoami', { key: JSON.parse(r.stdout).key });
      assertError(res, 401, 'unauthorized');
      assert.match(res.body.error.message, /unknown to this service .*works only with the data directory it was created in/);
      // In the service's own data directory: no note.
      const here = await cli(s, ['keys', 'create', '--name', 'at-home', '--json']);
      assert.equal(here.stderr, '');
    });

    test('keys list --data-dir on a missing folder does not create it', async () => {
      await cli(s, ['keys', 'list', '--data-dir', join(s.dataDir, 'missing')]);
      assert.equal(existsSync(join(s.dataDir, 'missing')), false);
    });
  });
});

/** Runs `npm run --silent cli -- ...args` on the test server's data directory. */
function cli(s: TestServer, args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, HELP_DATA_DIR: s.dataDir };
  delete env.NODE_TEST_CONTEXT;
  return runProcess('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: PROJECT, env, timeout: 60_000 });
}

/** Files of a commit that contain `text` (git grep exits 1 when there are none). */
function gitGrep(s: TestServer, text: string, commit: string): string {
  try {
    return s.git('grep', '-F', '-l', '-e', text, commit, '--').trim();
  } catch (err) {
    if ((err as { status?: number }).status === 1) return '';
    throw err;
  }
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}
