#!/usr/bin/env node
// Builds dist/main.js, the server in one ES module with its dependencies inside (a start then loads one
// file instead of compiling TypeScript and resolving hundreds of modules: about a second saved on every
// start), and dist/help-push.mjs, the content push script the service serves. See scripts/bundles.mjs.
import { build } from 'esbuild';
import { pushScriptOptions, serverOptions } from './bundles.mjs';

await Promise.all([build(serverOptions), build(pushScriptOptions)]);
