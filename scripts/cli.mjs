#!/usr/bin/env node
// `npm run cli -- <command>`: the command line from the TypeScript sources (src/cli/main.ts) through
// tsx where tsx is installed (a development install: the code as it is now, no build), else the built
// dist/cli.js (an install without development dependencies, `npm ci --omit=dev`: package.json's
// prepare and `npm start` build it). `node dist/cli.js` runs the built file directly.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let tsx = null;
try {
  tsx = import.meta.resolve('tsx');
} catch {
  // not installed: a production install
}
if (tsx !== null) {
  await import(tsx);
  await import('../src/cli/main.ts');
} else {
  const built = new URL('../dist/cli.js', import.meta.url);
  if (!existsSync(built)) {
    process.stderr.write(`Error: ${fileURLToPath(built)} is not built and tsx is not installed to run the sources: run npm run build\n`);
    process.exit(1);
  }
  await import(built.href);
}
