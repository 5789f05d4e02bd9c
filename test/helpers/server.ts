import type { Clock, NewId } from '../../src/clock.ts';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { KeyFile } from '../../src/auth/key-file.ts';
import { createKey, type CreateOptions } from '../../src/cli/keys.ts';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import type { FontCatalog } from '../../src/pdf/fonts.ts';
import { checkContract } from './contract.ts';

export interface TestServer {
  url: string;
  dataDir: string;
  gitdir: string;
  /** A key with help:read and help:write, named "writer". */
  key: string;
  service: RunningService;
  /** Sends a request; `key: null` sends none, a string sends that key, default the writer key. */
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** Issues another key in the data directory (the server accepts it at once). */
  createKey(opts: CreateOptions): Promise<string>;
  /** The system git, run on the data repository. */
  git(...args: string[]): string;
  /** Number of commits on main. */
  commitCount(): number;
  close(): Promise<void>;
  /** Stops the server and starts a new one on the same data directory (on the same port when asked: the OAuth issuer is the origin). */
  restart(opts?: { samePort?: boolean }): Promise<TestServer>;
}

export interface RequestOptions {
  body?: unknown;
  /** A raw body string, sent as is. */
  raw?: string | Uint8Array;
  key?: string | null;
  headers?: Record<string, string>;
  /** How long to wait for the answer, in ms (10 s by default; more for multi-megabyte bodies). */
  timeout?: number;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface StartOptions {
  /** Folder of sample content to import on first start; none by default. */
  sample?: string | null;
  dataDir?: string;
  env?: Record<string, string>;
  /** Where the service's stamps and dates come from, and its new ids (ServiceOptions). */
  clock?: Clock;
  newId?: NewId;
  /** Port to listen on (default: a free one). */
  port?: number;
  /** The PDF fonts (ServiceOptions; default: as the service finds them). */
  fonts?: FontCatalog;
}

/** Starts the real service on 127.0.0.1, port 0, with a fresh temporary data directory (removed on close). */
export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'help-test-'));
  const keyFile = new KeyFile(dataDir);
  const existing = keyFile.read().find((k) => k.name === 'writer');
  const key = existing ? writerKeys.get(dataDir)! : (await createKey(keyFile, { name: 'writer' })).key;
  writerKeys.set(dataDir, key);
  const config = loadConfig({ LOG_LEVEL: 'silent', ...opts.env }, { port: opts.port ?? 0, host: '127.0.0.1', dataDir, sampleContentDir: opts.sample ?? null });
  const service = await startService(config, pino({ level: 'silent' }), { clock: opts.clock, newId: opts.newId, fonts: opts.fonts });
  await service.ready;
  const gitdir = join(dataDir, 'content.git');
  const server: TestServer = {
    url: service.url,
    dataDir,
    gitdir,
    key,
    service,
    request: (method, path, o = {}) => send(service.url, method, path, o.key === undefined ? key : o.key, o),
    createKey: async (o) => (await createKey(keyFile, o)).key,
    git: (...args) => execFileSync('git', args, { cwd: gitdir, encoding: 'utf8' }),
    commitCount: () => {
      // A read that meets one of the service's pack merges as it removes the packs it merged can fail
      // (as with git gc beside any git reader): git then lists the packs again from the start.
      for (let attempt = 1; ; attempt++) {
        try {
          return Number(execFileSync('git', ['rev-list', '--count', 'main'], { cwd: gitdir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim());
        } catch (err) {
          const stderr = String((err as { stderr?: unknown }).stderr ?? '');
          // No commit yet, or no repository.
          if (/unknown revision|bad revision|ambiguous argument|not a git repository/.test(stderr)) return 0;
          if (attempt === 5) throw err;
        }
      }
    },
    close: async () => {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
    restart: async (again = {}) => {
      await service.close();
      return startTestServer({ ...opts, dataDir, port: again.samePort ? Number(new URL(service.url).port) : opts.port });
    },
  };
  return server;
}

const writerKeys = new Map<string, string>();

async function send(base: string, method: string, path: string, key: string | null, o: RequestOptions): Promise<TestResponse> {
  const headers: Record<string, string> = { ...o.headers };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | Uint8Array | undefined = o.raw;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, body: body as BodyInit | undefined, signal: AbortSignal.timeout(o.timeout ?? 10_000) });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const answer = { status: res.status, headers: res.headers, body: parsed, text };
  await checkContract(`${base}${path}`, method, answer);
  return answer;
}

/** Creates a version with the given languages and publishes it when asked. */
export async function createVersion(s: TestServer, slug: string, fields: Record<string, unknown> = {}) {
  const res = await s.request('POST', '/versions', { body: { slug, label: `Version ${slug}`, languages: ['en', 'de'], ...fields } });
  if (res.status !== 200) throw new Error(`create version ${slug}: ${res.status} ${res.text}`);
  return res.body;
}

/** Creates a node with English (and optionally more) translations. */
export async function createNode(s: TestServer, version: string, node: Record<string, unknown> & { slug: string }) {
  const body = { kind: 'topic', translations: { en: { title: `Title ${node.slug}`, bodyMd: `Body of ${node.slug}\n` } }, ...node };
  const res = await s.request('POST', `/versions/${version}/nodes`, { body });
  if (res.status !== 200) throw new Error(`create node ${node.slug}: ${res.status} ${res.text}`);
  return res.body;
}

/** PUTs a translation of a node (a topic or a section) and answers the response. */
export function putTranslation(s: TestServer, version: string, slug: string, lang: string, body: Record<string, unknown>, headers?: Record<string, string>) {
  return s.request('PUT', `/versions/${version}/topics/${slug}/translations/${lang}`, { body, headers });
}

/** Polls /whoami with the key until it answers `status`, for at most 2 s. */
export async function waitForStatus(s: TestServer, key: string, status: number): Promise<void> {
  const deadline = Date.now() + 2000;
  let last = 0;
  for (;;) {
    last = (await s.request('GET', '/whoami', { key })).status;
    if (last === status) return;
    if (Date.now() > deadline) assert.fail(`the server still answered ${last} (not ${status}) after 2 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits (at most 2 s) until the running server accepts a newly issued key. */
export function waitForKey(s: TestServer, key: string): Promise<void> {
  return waitForStatus(s, key, 200);
}

/** A node as GET /versions/{version}/nodes lists it (`bodyMd` only with `include=bodies`). */
export interface ListedNode {
  id: string;
  slug: string;
  kind: string;
  parentSlug: string | null;
  sortOrder: number;
  icon: string | null;
  updatedAt: string;
  translations: Record<string, { title: string; summary: string; updatedAt: string; bodyChars: number; bodyMd?: string }>;
}

/** The nodes of GET /versions/{version}/nodes, asserting a 200. */
export async function listNodes(s: TestServer, version: string, opts: { timeout?: number } = {}): Promise<ListedNode[]> {
  const res = await s.request('GET', `/versions/${version}/nodes`, { timeout: opts.timeout });
  assert.equal(res.status, 200, res.text.slice(0, 2000));
  return res.body.nodes as ListedNode[];
}

export interface ExportTranslation {
  title: string;
  summary: string;
  bodyMd: string;
  updatedAt: string;
}

/** A node of GET /versions/{version}/export. */
export interface ExportNode {
  id: string;
  slug: string;
  kind: 'section' | 'topic';
  parentSlug: string | null;
  icon: string | null;
  sortOrder: number;
  updatedAt: string;
  translations: Record<string, ExportTranslation>;
}

/** The JSON document of GET /versions/{version}/export. */
export interface ExportDoc {
  version: Record<string, unknown>;
  nodes: ExportNode[];
}

/** The JSON export of a version, asserting a 200. */
export async function exportOf(s: TestServer, version: string, opts: { timeout?: number } = {}): Promise<ExportDoc> {
  const res = await s.request('GET', `/versions/${version}/export`, { timeout: opts.timeout });
  assert.equal(res.status, 200, res.text.slice(0, 2000));
  return res.body as ExportDoc;
}
