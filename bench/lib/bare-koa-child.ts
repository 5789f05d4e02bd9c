/**
 * The read ceiling: a bare Koa server (one middleware, no router, no logging, no auth) answering
 * the exact response bytes and headers the service gave for each URL, from memory.
 *
 * Run as a child process: `node --import tsx bench/lib/bare-koa-child.ts <manifest.json>`. Prints one
 * JSON line `{ "origin": "http://127.0.0.1:PORT" }` on stdout once it listens.
 */
import * as fs from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import Koa from 'koa';

export interface ManifestRoute {
  url: string;
  status: number;
  headers: Record<string, string>;
  /** Body file, relative to the manifest's folder. */
  file: string;
}

const manifestPath = process.argv[2];
if (!manifestPath) {
  console.error('usage: bare-koa-child.ts <manifest.json>');
  process.exit(2);
}
const routes = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as ManifestRoute[];
const byUrl = new Map(routes.map((r) => [r.url, { ...r, body: fs.readFileSync(join(dirname(manifestPath), r.file)) }]));

const app = new Koa();
app.use((ctx) => {
  const route = byUrl.get(ctx.url);
  if (!route) {
    ctx.status = 404;
    return;
  }
  ctx.status = route.status;
  ctx.set(route.headers);
  ctx.body = route.body;
});

const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ origin: `http://127.0.0.1:${port}` })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
