import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { PROJECT } from '../helpers/process.ts';

/** Every source file of the service, its push script (src/push-script) and its build scripts. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|mjs|js)$/.test(e.name) ? [join(dir, e.name)] : []));
}

/**
 * Content and request data must never reach anything that runs code. The libraries are configured
 * not to (front matter: YAML only; js-yaml 4: no JavaScript types), and the service's own code must
 * not bring such a path back: no eval, no Function constructor, no vm, and processes started only
 * with fixed programs and argument lists (never a shell).
 */
test('no code path evaluates text: no eval, Function constructor, vm module or shell', () => {
  const found: string[] = [];
  for (const file of [...sources(join(PROJECT, 'src')), ...sources(join(PROJECT, 'scripts'))]) {
    const text = readFileSync(file, 'utf8');
    const where = relative(PROJECT, file);
    for (const [pattern, what] of [
      [/\beval\s*\(/, 'eval'],
      [/\bnew\s+Function\s*\(/, 'new Function'],
      [/\bFunction\s*\(\s*['"`]/, 'Function("…")'],
      [/from\s+['"](node:)?vm['"]/, 'the vm module'],
      [/import\s*\{[^}]*\bexec(Sync)?\b[^}]*\}\s*from\s*['"](node:)?child_process['"]/, 'a shell (exec)'],
      [/shell\s*:\s*true/, 'a shell (shell: true)'],
    ] as const) {
      if (pattern.test(text)) found.push(`${where}: ${what}`);
    }
  }
  assert.deepEqual(found, []);
});
