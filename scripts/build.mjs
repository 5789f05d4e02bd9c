#!/usr/bin/env node
// Builds dist/main.js, the server as an ES module with its dependencies inside, and the chunks it loads
// on first use (a start then loads a few files instead of compiling TypeScript and resolving hundreds of
// modules: about a second saved on every start), and dist/help-push.mjs, the content push script the
// service serves. See scripts/bundles.mjs.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isServerChunk, pushScriptOptions, ROOT, serverOptions } from './bundles.mjs';

const [server] = await Promise.all([build(serverOptions), build(pushScriptOptions)]);

// Chunks of earlier builds: a chunk's name changes with its content, so they would pile up. A server
// still running from an earlier build loses the parts it has not loaded yet: restart it after a build.
const written = new Set(Object.keys(server.metafile.outputs).flatMap((file) => [basename(file), `${basename(file)}.map`]));
const dist = join(ROOT, 'dist');
for (const name of readdirSync(dist)) if (isServerChunk(name) && !written.has(name)) rmSync(join(dist, name));
