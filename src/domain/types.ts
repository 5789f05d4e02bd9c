/** The in-memory model of the content. States are immutable: a write builds a new state (copy-on-write). */

export type VersionStatus = 'draft' | 'published' | 'archived';
export type NodeKind = 'section' | 'topic';

export interface VersionMeta {
  readonly label: string;
  readonly status: VersionStatus;
  /** The first entry is the primary language. */
  readonly languages: readonly string[];
  readonly sortOrder: number | null;
  readonly isLatest: boolean;
  readonly hidden: boolean;
  readonly workingCopyOf: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A node's place and properties; everything `version.json` holds about it. */
export interface NodeRec {
  readonly id: string;
  readonly slug: string;
  readonly kind: NodeKind;
  readonly parentSlug: string | null;
  readonly icon: string | null;
  /**
   * The sort key among siblings, as the client sent it (fractions included): siblings are in
   * ascending order of it; equal keys keep the order they had (see TreeDraft.place).
   */
  readonly sortOrder: number;
  /** Stamp of the last change to the node's own fields or position (not its translations). */
  readonly updatedAt: string;
  readonly children: readonly string[];
}

export interface Translation {
  readonly title: string;
  readonly summary: string;
  readonly bodyMd: string;
  readonly updatedAt: string;
  /**
   * The revision of the primary-language text this one was last brought in line with (the git blob
   * id of that text's file; see content/translation-base.ts). On the primary translation itself, set
   * only after minor edits: the revision its translations are still compared against.
   */
  readonly basedOn?: string;
}

export type TranslationsOf = ReadonlyMap<string, Translation>;

export interface VersionState {
  readonly slug: string;
  readonly meta: VersionMeta;
  readonly nodes: ReadonlyMap<string, NodeRec>;
  readonly roots: readonly string[];
  /** node slug → language → translation. Replaced (not mutated) on every translation change. */
  readonly translations: ReadonlyMap<string, TranslationsOf>;
  /** Old slugs of renamed nodes and slugs of deleted published ones (domain/redirects.ts); absent: none. */
  readonly redirects?: Redirects;
}

/**
 * What readers of a version's old addresses get: `moved` maps a renamed node's old slug to its
 * slug now (always one hop, never a live slug), `removed` lists the slugs of published nodes since
 * deleted (the portal answers 410 for them), both sorted so version.json changes by lines.
 */
export interface Redirects {
  readonly moved: ReadonlyMap<string, string>;
  readonly removed: readonly string[];
}

export const primaryLanguage = (meta: VersionMeta) => meta.languages[0];
