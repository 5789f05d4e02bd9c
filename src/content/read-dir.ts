import * as fs from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Every file below `dir`, keyed by its `/`-separated path relative to `dir`. */
export function readDirFiles(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.set(relative(dir, full).split(sep).join('/'), fs.readFileSync(full, 'utf8'));
    }
  };
  walk(dir);
  return out;
}
