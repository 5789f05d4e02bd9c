/** Helpers for content files and exported nodes. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A problem of content-file validation, as invalid_content and the push command report it. */
export interface Problem {
  path: string;
  line?: number;
  message: string;
}

/** A Markdown content file: frontmatter with the title (and any `extra` YAML lines), then the body. */
export const md = (title: string, body = `Body of ${title}.\n`, extra = '') => `---\ntitle: ${title}\n${extra}---\n${body}`;

/** The text of a version.json holding `doc`, as written by hand (indented, with a final newline). */
export const versionJson = (doc: Record<string, unknown>) => `${JSON.stringify(doc, null, 2)}\n`;

interface StampedNode {
  id: string;
  updatedAt: string;
  translations: Record<string, { updatedAt: string }>;
}

type Comparable<N extends StampedNode> = Omit<N, 'id' | 'updatedAt' | 'translations'> & {
  translations: Record<string, Omit<N['translations'][string], 'updatedAt'>>;
};

/** An exported node without what an import may change (its id and the stamps), for round-trip comparisons. */
export function comparable<N extends StampedNode>(node: N): Comparable<N> {
  const { id: _id, updatedAt: _u, translations, ...rest } = node;
  return {
    ...rest,
    translations: Object.fromEntries(Object.entries(translations).map(([l, { updatedAt: _t, ...t }]) => [l, t])),
  } as Comparable<N>;
}

/** Writes files (path → content) below `root`, creating folders as needed. */
export function writeFiles(root: string, files: Record<string, string | Uint8Array> | Map<string, string | Uint8Array>): void {
  for (const [path, content] of files instanceof Map ? files : Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}
