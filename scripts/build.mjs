#!/usr/bin/env node
// Builds dist/main.js, the server as an ES module with its dependencies inside, and the chunks it loads
// on first use (a start then loads a few files instead of compiling TypeScript and resolving hundreds of
// modules: about a second saved on every start), dist/help-push.mjs, the content push script the
// service serves, and dist/cli.js, the command line. See scripts/bundles.mjs and scripts/cli-bundle.mjs.
// It runs on `npm ci` and `npm install` (package.json's prepare: not where only package.json and the
// lockfile are there yet, as in the first layer of a container build) and on every `npm start`,
// production installs included: esbuild is a dependency, not a development dependency.
import { build } from 'esbuild';
import { chmodSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isServerChunk, pushScriptOptions, ROOT, serverOptions } from './bundles.mjs';
import { cliOptions } from './cli-bundle.mjs';

const [server] = await Promise.all([build(serverOptions), build(pushScriptOptions), build(cliOptions)]);
const dist = join(ROOT, 'dist');
chmodSync(join(dist, 'cli.js'), 0o755);

// Chunks of earlier builds: a chunk's name changes with its content, so they would pile up. A server
// still running from an earlier build loses the parts it has not loaded yet: restart it after a build.
const written = new Set(Object.keys(server.metafile.outputs).flatMap((file) => [basename(file), `${basename(file)}.map`]));
for (const name of readdirSync(dist)) if (isServerChunk(name) && !written.has(name)) rmSync(join(dist, name));
