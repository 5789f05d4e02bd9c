import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { contentGit, fastImport, gitInitBare, versionCommit } from '../bench/lib/git.ts';
import { SERVICE_NODE_FLAGS } from '../bench/lib/service.ts';
import { generateDocSet } from './helpers/generate.ts';
import { PROJECT, runProcess } from './helpers/process.ts';

// `npm start` builds the server into one file (dist/main.js) and runs that. The bundle must behave as
// the TypeScript sources do, including what it reads from the project folder by path: the sample
// content and the fonts of the PDF bundle; and it serves the push script the build writes beside it.

/** The flags `npm start` gives node before dist/main.js (package.json). */
function startFlags(): string[] {
  const start = (JSON.parse(fs.readFileSync(join(PROJECT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const m = /node((?: --\S+)*) dist\/main\.js/.exec(start);
  assert.ok(m, `npm start runs dist/main.js: ${start}`);
  return m[1].trim().split(' ').filter(Boolean);
}

/** dist/main.js started as `npm start` starts it on `dataDir` (port 0, loopback), with `env` added; `log` is its output so far. */
function startBuilt(dataDir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [...startFlags(), join(PROJECT, 'dist', 'main.js')], {
    cwd: dataDir,
    env: { PATH: process.env.PATH, HELP_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const served = { child, log: '', exited: new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))) };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (served.log += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (served.log += d));
  return served;
}

/** Builds dist/ once for the tests of this file (they run one after the other). */
let built: Promise<void> | null = null;
const buildOnce = () =>
  (built ??= runProcess(process.execPath, ['scripts/build.mjs'], { cwd: PROJECT, env: { PATH: process.env.PATH }, timeout: 60_000 }).then((build) => assert.equal(build.code, 0, build.stderr)));

describe('the built server (npm start)', () => {
  test('the example systemd unit, the container image, the deployment notes and the benchmark start the server with the flags npm start uses', () => {
    const flags = startFlags().join(' ');
    assert.match(flags, /--max-semi-space-size=\d+/);
    assert.match(fs.readFileSync(join(PROJECT, 'examples', 'deploy', 'help-content.service'), 'utf8'), new RegExp(`^ExecStart=/usr/bin/node ${flags} dist/main\\.js$`, 'm'));
    assert.ok(fs.readFileSync(join(PROJECT, 'docs', 'operations.md'), 'utf8').includes(`node ${flags} dist/main.js`));
    const cmd = JSON.stringify(['node', ...startFlags(), 'dist/main.js']).replaceAll(',', ', ');
    assert.ok(fs.readFileSync(join(PROJECT, 'examples', 'deploy', 'Containerfile'), 'utf8').includes(`CMD ${cmd}`), `the Containerfile runs CMD ${cmd}`);
    assert.equal(SERVICE_NODE_FLAGS.join(' '), flags);
  });

  test('builds, imports the sample content, serves content, the push script and fonts, and stops cleanly on SIGTERM', async () => {
    await buildOnce();
    const dataDir = fs.mkdtempSync(join(tmpdir(), 'help-build-'));
    const served = startBuilt(dataDir, { LOG_LEVEL: 'info' });
    const { child, exited } = served;
    try {
      const url = await waitFor(() => /"url":"(http:\/\/127\.0\.0\.1:\d+\/help\/v1)"/.exec(served.log)?.[1], 20_000, () => served.log);
      await waitFor(async () => (await fetch(url.replace('/help/v1', '/healthz'))).status === 200 || undefined, 20_000, () => served.log);

      const versions = (await (await fetch(`${url}/versions`)).json()) as Array<{ slug: string }>;
      assert.deepEqual(versions.map((v) => v.slug), ['v1'], 'the sample content is imported');
      const topic = await fetch(`${url}/versions/v1/topics/welcome`);
      assert.equal(topic.status, 200);

      // The push script the build wrote next to the server, served as it is, and runnable on its own.
      const script = await fetch(`${url}/cli/help-push.mjs`);
      assert.equal(script.status, 200);
      const built = fs.readFileSync(join(PROJECT, 'dist', 'help-push.mjs'), 'utf8');
      assert.equal(await script.text(), built);
      fs.writeFileSync(join(dataDir, 'help-push.mjs'), built);
      const usage = await runProcess(process.execPath, [join(dataDir, 'help-push.mjs'), '--help'], { cwd: dataDir, env: { PATH: process.env.PATH }, timeout: 20_000 });
      assert.equal(usage.code, 0, usage.stderr);
      assert.match(usage.stdout, /help-push push-changed/);

      const bundle = (await (await fetch(`${url}/versions/v1/pdf-bundle`)).json()) as { fonts: Array<{ url: string }> };
      const font = await fetch(bundle.fonts[0].url);
      assert.equal(font.status, 200);
      assert.equal(Buffer.from(await font.arrayBuffer()).subarray(0, 4).toString('hex'), '00010000', 'a TrueType file');

      // Parts built on first use come from chunks beside dist/main.js: the authorization server, the portal, the tool server.
      const origin = new URL(url).origin;
      const metadata = await fetch(`${origin}/.well-known/oauth-authorization-server`);
      assert.equal(metadata.status, 200);
      assert.equal(((await metadata.json()) as { issuer: string }).issuer, origin);
      const page = await fetch(`${origin}/support/v1/welcome`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<html/);
      const tools = await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(tools.status, 200);
      assert.ok(((await tools.json()) as { result: { tools: unknown[] } }).result.tools.length > 0);

      // gray-matter's default engines (one evaluates front matter as JavaScript) are in no file of the build.
      for (const file of fs.readdirSync(join(PROJECT, 'dist')).filter((f) => /\.m?js$/.test(f))) {
        const text = fs.readFileSync(join(PROJECT, 'dist', file), 'utf8');
        assert.ok(!text.includes('wrap !== false') && !text.includes('.safeLoad.bind('), `${file} holds gray-matter's default engines`);
      }

      child.kill('SIGTERM');
      assert.equal(await exited, 0, served.log);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('indexes a version loaded without snapshots on worker threads (dist/index-worker.js)', async () => {
    await buildOnce();
    const dataDir = fs.mkdtempSync(join(tmpdir(), 'help-build-'));
    // Enough text for the workers: about 6 MB.
    const set = generateDocSet({ nodes: 200, seed: 3, languages: ['en', 'ja'], bodyBytes: { min: 10_000, max: 20_000 }, label: 'Workers', status: 'published' });
    gitInitBare(contentGit(dataDir));
    await fastImport(contentGit(dataDir), versionCommit('v1', set.files, 'a version without snapshots'));
    const served = startBuilt(dataDir, { LOG_LEVEL: 'debug', HELP_SAMPLE_CONTENT: 'off', HELP_INDEX_WORKERS: '2', HELP_INDEX_WORKERS_MIN_MCHARS: '2' });
    const { child, exited } = served;
    try {
      const url = await waitFor(() => /"url":"(http:\/\/127\.0\.0\.1:\d+\/help\/v1)"/.exec(served.log)?.[1], 20_000, () => served.log);
      // Served first, then indexed: /healthz counts the version as indexing until its indexes are built (and names it to a key).
      const searchable = async () => {
        const res = await fetch(url.replace('/help/v1', '/healthz'));
        return (res.status === 200 && ((await res.json()) as { versions: { indexing: number } }).versions.indexing === 0) || undefined;
      };
      await waitFor(searchable, 30_000, () => served.log);
      // The log comes through another pipe than the answers, and may be read after /healthz's answer.
      const workerBuilds = () => (served.log.match(/"msg":"search index built on a worker thread"/g) ?? []).length;
      await waitFor(() => workerBuilds() >= 2 || undefined, 10_000, () => `one worker build per language:\n${served.log}`);
      assert.equal(workerBuilds(), 2, `one worker build per language:\n${served.log}`);
      assert.doesNotMatch(served.log, /an index worker failed/);
      for (const probe of set.probes) {
        const found = (await (await fetch(`${url}/versions/v1/search?${new URLSearchParams({ q: probe.word, lang: probe.language })}`)).json()) as { hits: Array<{ slug: string }> };
        assert.deepEqual(found.hits.map((h) => h.slug), [probe.slug], `${probe.language} "${probe.word}"`);
      }
      child.kill('SIGTERM');
      assert.equal(await exited, 0, served.log);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('the built command line (dist/cli.js, the help-content bin) makes a key the built server accepts, with no dependency installed; npm run cli runs it where tsx is not installed', async () => {
    await buildOnce();
    const dataDir = fs.mkdtempSync(join(tmpdir(), 'help-build-'));
    const bare = fs.mkdtempSync(join(tmpdir(), 'help-build-cli-'));
    const env = { PATH: process.env.PATH };
    let served: ReturnType<typeof startBuilt> | null = null;
    try {
      // Run as a program, as the bin entry's link runs it.
      const cli = join(PROJECT, 'dist', 'cli.js');
      assert.ok(fs.readFileSync(cli, 'utf8').startsWith('#!/usr/bin/env node\n'));
      const created = await runProcess(cli, ['keys', 'create', '--name', 'built-cli', '--json', '--data-dir', dataDir], { cwd: dataDir, env, timeout: 20_000 });
      assert.equal(created.code, 0, created.stderr);
      const { key } = JSON.parse(created.stdout) as { key: string };

      // scripts/cli.mjs (npm run cli) and dist/cli.js alone in a folder without node_modules: no tsx, no dependency.
      fs.mkdirSync(join(bare, 'scripts'));
      fs.copyFileSync(join(PROJECT, 'scripts', 'cli.mjs'), join(bare, 'scripts', 'cli.mjs'));
      const unbuilt = await runProcess(process.execPath, [join(bare, 'scripts', 'cli.mjs'), 'keys', 'list', '--data-dir', dataDir], { cwd: bare, env, timeout: 20_000 });
      assert.equal(unbuilt.code, 1);
      assert.match(unbuilt.stderr, /dist[\\/]cli\.js is not built and tsx is not installed to run the sources: run npm run build/);
      fs.mkdirSync(join(bare, 'dist'));
      fs.copyFileSync(cli, join(bare, 'dist', 'cli.js'));
      const listed = await runProcess(process.execPath, [join(bare, 'scripts', 'cli.mjs'), 'keys', 'list', '--json', '--data-dir', dataDir], { cwd: bare, env, timeout: 20_000 });
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual((JSON.parse(listed.stdout) as Array<{ name: string }>).map((k) => k.name), ['built-cli']);

      const running = startBuilt(dataDir, { LOG_LEVEL: 'info' });
      served = running;
      const url = await waitFor(() => /"url":"(http:\/\/127\.0\.0\.1:\d+\/help\/v1)"/.exec(running.log)?.[1], 20_000, () => running.log);
      const whoami = await fetch(`${url}/whoami`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(whoami.status, 200);
      assert.equal(((await whoami.json()) as { keyName: string }).keyName, 'built-cli');
      running.child.kill('SIGTERM');
      assert.equal(await running.exited, 0, running.log);
    } finally {
      if (served && served.child.exitCode === null) served.child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  // In this file so that it never builds dist/ while the tests above use it.
  test("the README's walk-through, pasted into a shell as one block beside the server started from the top, does what it says", async () => {
    const readme = fs.readFileSync(join(PROJECT, 'README.md'), 'utf8');
    const top = /^```sh\n([\s\S]*?)```/m.exec(readme)?.[1] ?? '';
    assert.match(top, /^npm ci && npm start /m, 'the README starts the service at the top');
    const walk = readme.slice(readme.indexOf('## A first walk-through'), readme.indexOf('\n## ', readme.indexOf('## A first walk-through') + 3));
    const block = /```sh\n([\s\S]*?)```/.exec(walk)?.[1];
    assert.ok(block, 'the README has a walk-through block');
    assert.doesNotMatch(block, /^[^#'\n]*\b(npm (run )?start|npm run dev|node \S*dist\/main\.js)\b/m, 'the walk-through uses the server from the top, never a second one');
    assert.match(walk, /Now open http:\/\/127\.0\.0\.1:8080\/support\b/, 'the walk-through ends at the portal');
    const port = await freePort();
    const dataDir = fs.mkdtempSync(join(tmpdir(), 'help-walk-'));
    // Only the port and the data directory differ from what a reader runs: `npm start` in one terminal,
    // the block pasted into another.
    const env = { ...process.env, PORT: String(port), HELP_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    const server = spawn('npm', ['start'], { cwd: PROJECT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    server.stdout.setEncoding('utf8').on('data', (d: string) => (log += d));
    server.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
    const origin = `http://127.0.0.1:${port}`;
    const script = block.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`).replaceAll('data/content.git', `${dataDir}/content.git`);
    let shell: ReturnType<typeof spawn> | undefined;
    try {
      await waitFor(async () => (await fetch(`${origin}/healthz`)).ok || undefined, 60_000, () => log);
      shell = spawn('bash', ['-c', script], { cwd: PROJECT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      shell.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
      shell.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
      const code = await new Promise<number | null>((resolve) => shell!.on('exit', resolve));
      assert.equal(code, 0, out);
      assert.doesNotMatch(out, /Nothing answers/, 'the block finds the server from the top');
      assert.doesNotMatch(out, /"error"/, 'no request of the walk-through is refused');
      assert.match(out, /"title":"Erste Schritte"/, 'the tree in German');
      assert.match(out, /"title":"Installieren"/, 'the topic in German');
      assert.match(out, /docs-team: /, 'the writes are commits by the key');
      // Then the portal's start page offers the version the walk-through marked latest first, and its topic reads.
      const home = await fetch(`${origin}/support`);
      const start = await home.text();
      assert.equal(home.status, 200, start);
      const firstCard = /<li class="card[^"]*">\s*<h3><a href="([^"]+)">([^<]+)<\/a>/.exec(start);
      assert.deepEqual(firstCard?.slice(1), ['/support/v2', 'Version 2'], 'the version marked latest comes first');
      const portal = await fetch(`${origin}/support/latest/install`);
      const page = await portal.text();
      assert.equal(portal.status, 200, page);
      assert.match(page, /Get the installer\./, page);
      const german = await fetch(`${portal.url}${portal.url.includes('?') ? '&' : '?'}lang=de`);
      assert.match(await german.text(), /Laden Sie das Installationsprogramm\./, 'and in German with ?lang=de');
    } finally {
      for (const child of [shell, server]) {
        try {
          if (child?.pid) process.kill(-child.pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
      await new Promise((r) => setTimeout(r, 500));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, ms: number, context: () => string): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`timed out; output so far:\n${context()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
