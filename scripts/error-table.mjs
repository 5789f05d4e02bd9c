// Prints the error table of docs/error-codes.md from src/errors.ts (paste it over the table's rows there).
import { readFileSync } from 'node:fs';

const src = readFileSync(new URL('../src/errors.ts', import.meta.url), 'utf8');
for (const [, code, status, description] of src.matchAll(/^ {2}(\w+): \{ status: (\d+), description: '((?:[^'\\]|\\.)*)' \},/gm)) {
  console.log(`| ${status} | \`${code}\` | ${description.replace(/\\'/g, "'")} |`);
}
