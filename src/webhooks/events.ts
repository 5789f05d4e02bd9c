import type { NodeRec, Translation, VersionState } from '../domain/types.ts';

/** Every event a subscription can ask for. */
export const WEBHOOK_EVENTS = [
  'version.published',
  'version.updated',
  'node.created',
  'node.updated',
  'node.deleted',
  'translation.updated',
  'import.completed',
  'publish_request.updated',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** What a delivery's body says about one event (besides its type and time, added when it is queued). */
export interface EventData {
  /** The version the event is about. */
  version: string;
  /** The commit the change is in: `GET …?revision=` reads the content as it was then. */
  revision: string | null;
  slugs?: string[];
  languages?: string[];
  [more: string]: unknown;
}

export interface WebhookEvent {
  type: WebhookEventType;
  data: EventData;
}

/**
 * The events one commit makes of a version, read from its state before and after: nodes created,
 * changed or deleted (matched by id, so a renamed node is updated, not deleted and created),
 * translations changed, and the version's own changes. Derived here rather than announced by each
 * write path, so no write (an import, a reorder, a merged pull request) can forget to announce.
 */
export function eventsOf(slug: string, before: VersionState | null, after: VersionState | null, revision: string | null): WebhookEvent[] {
  const events: WebhookEvent[] = [];
  const at = (type: WebhookEventType, data: Omit<EventData, 'version' | 'revision'>) => events.push({ type, data: { version: slug, revision, ...data } });
  if (before === null || after === null || before.meta !== after.meta) {
    const change = before === null ? 'created' : after === null ? 'deleted' : 'updated';
    if (after !== null && after.meta.status === 'published' && before?.meta.status !== 'published') at('version.published', { status: 'published', isLatest: after.meta.isLatest });
    at('version.updated', { change, ...(after ? { status: after.meta.status, isLatest: after.meta.isLatest, languages: [...after.meta.languages] } : {}) });
  }
  // A deleted version's nodes go with it: one event says so.
  if (after === null) return events;
  const oldById = byId(before);
  const newById = byId(after);
  const created: string[] = [];
  const updated: string[] = [];
  const deleted: string[] = [];
  for (const [id, node] of newById) {
    const old = oldById.get(id);
    if (old === undefined) created.push(node.slug);
    else if (old !== node && !sameNode(old, node)) updated.push(node.slug);
  }
  for (const [id, node] of oldById) if (!newById.has(id)) deleted.push(node.slug);
  if (created.length > 0) at('node.created', { slugs: created });
  if (updated.length > 0) at('node.updated', { slugs: updated });
  if (deleted.length > 0) at('node.deleted', { slugs: deleted });
  const translated = changedTranslations(before, after);
  if (translated.slugs.length > 0) at('translation.updated', translated);
  return events;
}

const byId = (state: VersionState | null): Map<string, NodeRec> => new Map([...(state?.nodes.values() ?? [])].map((n) => [n.id, n]));

const sameNode = (a: NodeRec, b: NodeRec) =>
  a.slug === b.slug && a.kind === b.kind && a.parentSlug === b.parentSlug && a.icon === b.icon && a.sortOrder === b.sortOrder && a.children.length === b.children.length && a.children.every((c, i) => c === b.children[i]);

const sameText = (a: Translation, b: Translation) => a.title === b.title && a.summary === b.summary && a.bodyMd === b.bodyMd;

/** The nodes (by their new slug) whose translations were written or deleted, and the languages of those. */
function changedTranslations(before: VersionState | null, after: VersionState | null): { slugs: string[]; languages: string[] } {
  const slugs: string[] = [];
  const languages = new Set<string>();
  const oldSlugOf = new Map([...(before?.nodes.values() ?? [])].map((n) => [n.id, n.slug]));
  const seen = new Set<string>();
  for (const node of after?.nodes.values() ?? []) {
    const oldSlug = oldSlugOf.get(node.id);
    const next = after!.translations.get(node.slug);
    const prev = oldSlug === undefined ? undefined : before!.translations.get(oldSlug);
    if (oldSlug !== undefined) seen.add(oldSlug);
    if (next === prev) continue;
    const langs = new Set([...(next?.keys() ?? []), ...(prev?.keys() ?? [])]);
    let changed = false;
    for (const lang of langs) {
      const a = prev?.get(lang);
      const b = next?.get(lang);
      if (a === b || (a !== undefined && b !== undefined && sameText(a, b))) continue;
      changed = true;
      languages.add(lang);
    }
    if (changed) slugs.push(node.slug);
  }
  return { slugs, languages: [...languages] };
}
