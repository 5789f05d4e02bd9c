// How the command line is bundled: dist/cli.js, one file with its dependencies inside, run by plain
// `node` (`node dist/cli.js keys create --name NAME`, the `help-content` bin of package.json, and
// `npm run cli` in an install without development dependencies: scripts/cli.mjs). Built by
// scripts/build.mjs beside the server; the same settings as the push script (scripts/bundles.mjs).
import { pushScriptOptions } from './bundles.mjs';

export const cliOptions = {
  ...pushScriptOptions,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/cli.js',
  // Runnable as a program (the bin entry links to it): the interpreter line comes first.
  banner: { js: `#!/usr/bin/env node\n${pushScriptOptions.banner.js}` },
  sourcemap: 'linked',
  metafile: true,
};
