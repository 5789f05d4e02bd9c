/** Helpers for tests of the push script: the script as the service serves it, content folders, runs. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KeyFile } from '../../src/auth/key-file.ts';
import { createKey } from '../../src/cli/keys.ts';
import { md, versionJson } from './content.ts';
import { FakeGitHub } from './fake-github.ts';
import { runProcess, type Run } from './process.ts';
import { startTestServer, type TestServer } from './server.ts';

/** What a run may find on PATH: node and the system's tools (git, curl, bash), nothing of the project. */
export const TOOLS_PATH = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');

/**
 * The push script as the service serves it (GET /cli/help-push.mjs), written into a fresh folder
 * outside the project: running it from there proves it needs nothing but Node.js.
 */
export async function fetchPushScript(url: string): Promise<string> {
  const res = await fetch(`${url}/cli/help-push.mjs`, { signal: AbortSignal.timeout(60_000) });
  if (res.status !== 200) throw new Error(`GET /cli/help-push.mjs: ${res.status} ${await res.text()}`);
  const path = join(mkdtempSync(join(tmpdir(), 'help-script-')), 'help-push.mjs');
  writeFileSync(path, await res.text());
  return path;
}

/** Runs a command without blocking the event loop (the server under test runs in this process), with only the environment given. */
export function run(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string | undefined> }): Promise<Run> {
  return runProcess(cmd, args, { cwd: opts.cwd, env: { PATH: TOOLS_PATH, HOME: tmpdir(), ...opts.env }, timeout: 90_000 });
}

/** A valid version folder's files (paths inside the folder). */
export function goodVersion(label: string, extra: Record<string, unknown> = {}): Record<string, string> {
  return {
    'version.json': versionJson({ label, ...extra, languages: ['en', 'de'], nav: ['a', 'b'] }),
    'en/a.md': md('A', 'The first topic.\n'),
    'de/a.md': md('A auf Deutsch', 'Das erste Thema.\n'),
    'en/b.md': md('B', 'The second topic.\n'),
  };
}

/** A version folder with errors (broken YAML on line 3, a nav entry without a file, a file without a nav entry) and a warning. */
export function brokenVersion(): Record<string, string> {
  return {
    'version.json': versionJson({ label: 'Broken', languages: ['en', 'de'], nav: ['a', 'b', 'missing'] }),
    'en/a.md': '---\ntitle: A\nsummary: a: b\n---\nBody.\n',
    'de/a.md': md('A auf Deutsch'),
    'en/b.md': md('B', 'Body.\n', 'author: someone\n'),
    'en/orphan.md': md('Orphan'),
  };
}

export const lines = (text: string) => text.split('\n').filter((l) => l !== '');

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The service with the lock on published versions (publishing through a fake GitHub), and a publisher key issued before the start. */
export async function startLockedService(gh: FakeGitHub): Promise<{ s: TestServer; publisher: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
  const publisher = (await createKey(new KeyFile(dataDir), { name: 'content-publisher', publisher: true })).key;
  const s = await startTestServer({
    dataDir,
    env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url },
  });
  return { s, publisher };
}
