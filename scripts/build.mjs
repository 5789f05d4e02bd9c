#!/usr/bin/env node
// Builds the server into one ES module, dist/main.js, with its dependencies inside: a start then
// loads one file instead of compiling TypeScript and resolving hundreds of modules (about a second
// saved on every start). The font packages stay outside: the PDF bundle reads their files by path.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  absWorkingDir: root,
  entryPoints: ['src/main.ts'],
  outfile: 'dist/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['@expo-google-fonts/*'],
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  sourcemap: 'linked',
  logLevel: 'warning',
});
