// How the service and the push script are bundled, shared by scripts/build.mjs and by the service's
// GET /cli/help-push.mjs, which builds the script in memory when it runs from the TypeScript sources.
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

// CommonJS dependencies call require(); an ES module has none of its own.
const REQUIRE = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * koa, its content negotiation and co-body each hold a copy of mime-db (the media types database,
 * 200 KB of JSON) at different versions, and each copy is built into lookup tables when the server
 * starts (about 2 MB of memory for the two extra). The server bundle keeps one copy: the one installed
 * at the top of node_modules (koa's, the newest); the older ones only lack recently registered types.
 */
const oneMimeDatabase = {
  name: 'one-mime-database',
  setup(b) {
    b.onResolve({ filter: /^mime-db$/ }, () => ({ path: createRequire(import.meta.url).resolve('mime-db') }));
  },
};

/**
 * Koa checks every body it sets and sends with `instanceof Response` (and ReadableStream, Blob). In
 * Node.js those globals are made on first use: the first JSON answer then loads the fetch
 * implementation (undici), about 10 MB of memory and tens of milliseconds of a start, for a service
 * that never answers with one. The server bundle asks the value's own tag first, which never touches
 * the global for a plain object; a real Response (or a subclass) still meets the same `instanceof`.
 */
const WEB_BODY_TYPES = /\b([A-Za-z_$][\w$]*) instanceof (Response|ReadableStream|Blob)\b/g;
const koaWithoutEagerWebGlobals = {
  name: 'koa-without-eager-web-globals',
  setup(b) {
    b.onLoad({ filter: /[\\/]koa[\\/]lib[\\/](response|application)\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const contents = source.replace(WEB_BODY_TYPES, (_, value, type) => `(Object.prototype.toString.call(${value}) === '[object ${type}]' && ${value} instanceof ${type})`);
      // A Koa release that checks bodies differently must be looked at again, not bundled unchanged.
      if (contents === source) throw new Error(`${args.path}: no "instanceof Response" left to guard; review koaWithoutEagerWebGlobals`);
      return { contents, loader: 'js' };
    });
  },
};

/**
 * The server: dist/main.js, with its dependencies inside (the font packages stay outside: the PDF bundle
 * reads their files by path), and beside it the chunks the server imports when a part is first used
 * (the authorization server, the tool server, the portal, the GitHub client: src/first-use.ts), named
 * `<name>-<hash>.js`. A start then reads only the code every deployment runs. The chunks stay in
 * dist/ itself: code inside them finds the project folder as dist/main.js does, one folder up.
 * dist/index-worker.js is the script of the threads that build search indexes (src/index/index-workers.ts
 * starts it by that name, beside itself); the indexing code it shares with the server is a chunk both import.
 */
export const serverOptions = {
  absWorkingDir: ROOT,
  entryPoints: { main: 'src/main.ts', 'index-worker': 'src/index/index-worker.ts' },
  outdir: 'dist',
  chunkNames: '[name]-[hash]',
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['@expo-google-fonts/*'],
  banner: { js: REQUIRE },
  plugins: [oneMimeDatabase, koaWithoutEagerWebGlobals],
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
};

/** Whether a file of dist/ is a chunk of the server (see serverOptions.chunkNames). */
export const isServerChunk = (name) => /^[\w.-]+-[A-Z0-9]{8}\.js(\.map)?$/.test(name);

/** The push script, dist/help-push.mjs: one file, no dependencies, Node.js 20 or later. */
export const pushScriptOptions = {
  absWorkingDir: ROOT,
  entryPoints: ['src/push-script/bin.ts'],
  outfile: 'dist/help-push.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner: { js: REQUIRE },
  legalComments: 'none',
  logLevel: 'warning',
};

/** The push script's text, built in memory. */
export async function buildPushScript() {
  const result = await build({ ...pushScriptOptions, write: false, logLevel: 'silent' });
  return result.outputFiles[0].text;
}
