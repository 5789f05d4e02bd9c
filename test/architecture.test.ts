import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The layers of src/, lowest first (docs/architecture.md). A module may import its own layer and
 * the layers below it, never one above: the git plumbing knows nothing of content, the domain
 * nothing of HTTP, and a new interface (the tool server, the portal) sits beside the routes.
 */
const LAYERS: ReadonlyArray<readonly string[]> = [
  ['errors.ts', 'clock.ts', 'first-use.ts', 'slices.ts', 'waits.ts', 'env-values.ts'],
  ['domain'],
  ['content', 'storage'],
  ['index'],
  ['store'],
  ['config.ts', 'auth', 'publishing', 'pdf', 'metrics.ts', 'webhooks', 'replica', 'feedback'],
  ['commands', 'queries', 'deps.ts'],
  ['presenters', 'schemas'],
  ['http', 'oauth'],
  ['routes', 'mcp', 'portal'],
  ['app.ts', 'service.ts', 'startup-errors.ts', 'main.ts', 'cli', 'push-script'],
];

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** The layer of a file under src/: by its folder, or its own name at the top. */
function layerOf(file: string): number {
  const top = relative(SRC, file).split(/[\\/]/)[0];
  const layer = LAYERS.findIndex((names) => names.includes(top));
  assert.ok(layer >= 0, `src/${top} belongs to no layer: add it to LAYERS and to docs/architecture.md`);
  return layer;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

test('no module in src/ imports from a layer above its own', () => {
  const upward: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = resolve(dirname(file), m[1]);
      if (!target.startsWith(SRC)) {
        upward.push(`src/${relative(SRC, file)} imports ${m[1]}, outside src/`);
        continue;
      }
      if (layerOf(target) > layerOf(file)) upward.push(`src/${relative(SRC, file)} (layer ${layerOf(file)}) imports src/${relative(SRC, target)} (layer ${layerOf(target)})`);
    }
  }
  assert.deepEqual(upward, []);
});

/**
 * The modules a file loads when it is loaded: its static imports and re-exports, not `import type`
 * (erased) nor `import()` (loaded later, on first use).
 */
function loadedBy(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;'"]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'/gm)].map((m) => m[1]);
  return specifiers.map((s) => resolve(dirname(file), s));
}

test('no two modules in src/ load each other, directly or round a longer loop', () => {
  // Within a layer imports may go either way; a loop means one of them runs before the other has
  // defined what it uses (a const read before its module ran is a ReferenceError at start).
  const graph = new Map(sourceFiles(SRC).map((f) => [f, loadedBy(f)]));
  const loops: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    const at = path.indexOf(file);
    if (at >= 0) {
      loops.push([...path.slice(at), file].map((f) => `src/${relative(SRC, f)}`).join(' → '));
      return;
    }
    if (done.has(file) || !graph.has(file)) return;
    path.push(file);
    for (const next of graph.get(file)!) visit(next);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  assert.deepEqual(loops, []);
});
