import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { join } from 'node:path';
import type { ManifestRoute } from './bare-koa-child.ts';
import { PROJECT_ROOT } from './util.ts';

/** Headers that belong to the connection, not to the answer; Node sets them itself. */
const HOP = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

export interface Captured {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** GETs a URL (path + query) from `origin` and keeps the answer byte for byte. */
export function capture(origin: string, url: string): Promise<Captured> {
  return new Promise((resolve, reject) => {
    http
      .get(`${origin}${url}`, { agent: false }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (!HOP.has(k) && v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ url, status: res.statusCode ?? 0, headers, body: Buffer.concat(parts) });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export interface BareKoa {
  proc: ChildProcess;
  origin: string;
  stop(): Promise<void>;
}

/** Starts the bare Koa ceiling in a child process, serving the captured answers. */
export async function startBareKoa(dir: string, answers: readonly Captured[]): Promise<BareKoa> {
  fs.mkdirSync(dir, { recursive: true });
  const manifest: ManifestRoute[] = answers.map((a, i) => {
    const file = `body-${i}.bin`;
    fs.writeFileSync(join(dir, file), a.body);
    return { url: a.url, status: a.status, headers: a.headers, file };
  });
  const manifestPath = join(dir, 'manifest.json');
  fs.writeFileSync(manifestPath, JSON.stringify(manifest));
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/bare-koa-child.ts', manifestPath], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-8192)));
  const origin = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { origin: string }).origin);
    });
    proc.once('exit', (code) => reject(new Error(`the bare Koa server exited with ${code}: ${err}`)));
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    proc,
    origin,
    stop: async () => {
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await exited;
    },
  };
}
