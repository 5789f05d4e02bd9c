import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeRec, Translation, TranslationsOf, VersionState } from '../src/domain/types.ts';
import { changedNodeTables, entriesOf, fileChangesOfStates, nodeTableOf } from '../src/store/history-changes.ts';
import { copyFingerprint, createdNodes, creatingEntries, liveNodes } from '../src/store/history-copies.ts';

const STAMP = '2026-01-01T00:00:00.000Z';
const node = (id: string, slug: string, parentSlug: string | null = null, sortOrder = 0): NodeRec => ({ id, slug, kind: 'topic', parentSlug, icon: null, sortOrder, updatedAt: STAMP, children: [] });
const text = (title: string): Translation => ({ title, summary: '', bodyMd: `${title}\n`, updatedAt: STAMP });

function state(nodes: NodeRec[], translations: Array<[string, TranslationsOf]>): VersionState {
  return {
    slug: 'v1',
    meta: { label: 'v1', status: 'draft', languages: ['en', 'de'], sortOrder: null, isLatest: false, hidden: false, workingCopyOf: null, createdAt: STAMP, updatedAt: STAMP },
    nodes: new Map(nodes.map((n) => [n.slug, n])),
    roots: nodes.filter((n) => n.parentSlug === null).map((n) => n.slug),
    translations: new Map(translations),
  };
}

/** The entries of a write, from the tables given. */
const entries = (before: VersionState, after: VersionState, tables: { before: ReadonlyMap<string, any>; after: ReadonlyMap<string, any> }) =>
  entriesOf(tables.before, tables.after, fileChangesOfStates(before, after, tables.before, tables.after), (language, slug) => `${language}/${slug}`);
const whole = (before: VersionState, after: VersionState) => ({ before: nodeTableOf(before), after: nodeTableOf(after) });

test('the entries of a write from the nodes it replaced are those from every node', () => {
  const guide = node('g', 'guide');
  const install = node('i', 'install', 'guide');
  const other = Array.from({ length: 50 }, (_, i) => node(`o${i}`, `other-${i}`, 'guide', i + 1));
  const texts: Array<[string, TranslationsOf]> = [...[guide, install, ...other].map((n): [string, TranslationsOf] => [n.slug, new Map([['en', text(n.slug)]])])];
  const before = state([guide, install, ...other], texts);
  const nodes = new Map(before.nodes);
  const translations = new Map(before.translations);
  // Renamed and moved, one created, one deleted, one translation edited: the rest kept as the very objects they were.
  nodes.delete('install');
  nodes.set('setup', node('i', 'setup', null, 3));
  translations.delete('install');
  translations.set('setup', new Map([['en', text('install')], ['de', text('setup de')]]));
  nodes.set('new', node('n', 'new', 'guide', 99));
  translations.set('new', new Map([['en', text('new')]]));
  nodes.delete('other-3');
  translations.delete('other-3');
  translations.set('other-7', new Map([['en', text('other-7 edited')]]));
  const after = { ...before, nodes, translations };
  const changed = changedNodeTables(before, after);
  assert.ok(changed.after.size <= 4, `only what changed is compared (${changed.after.size} nodes)`);
  assert.deepEqual(entries(before, after, changed), entries(before, after, whole(before, after)));
  assert.deepEqual(entries(before, after, changed).map((e) => `${e.slug}/${e.language}: ${e.change}`).sort(), [
    'new/en: created', 'new/null: created', 'other-3/en: deleted', 'other-3/null: deleted', 'other-7/en: updated', 'setup/de: created', 'setup/en: renamed', 'setup/null: renamed',
  ]);
  // A translation edit leaves the nodes as they were: nothing else is compared.
  const edited = { ...before, translations: new Map(before.translations).set('other-9', new Map([['en', text('x')]])) };
  assert.equal(changedNodeTables(before, edited).after.size, 1);
  assert.deepEqual(entries(before, edited, changedNodeTables(before, edited)), entries(before, edited, whole(before, edited)));
});

test('a parent deleted and created again under its slug moves its children, whose records did not change', () => {
  const parent = node('p1', 'guide');
  const child = node('c', 'install', 'guide');
  const before = state([parent, child], [['guide', new Map([['en', text('guide')]])], ['install', new Map([['en', text('install')]])]]);
  const after = { ...before, nodes: new Map(before.nodes).set('guide', node('p2', 'guide')) };
  const got = entries(before, after, changedNodeTables(before, after));
  assert.deepEqual(got, entries(before, after, whole(before, after)));
  assert.ok(got.some((e) => e.id === 'c' && e.change === 'moved'));
});

test('a copy\'s entries derived from its source\'s are those its creation recorded', () => {
  const source = new Map([
    ['a', [{ change: 'created' as const, slug: 'old', language: null }, { change: 'created' as const, slug: 'old', language: 'en', blob: 'b1' }, { change: 'renamed' as const, slug: 'a', language: null }, { change: 'renamed' as const, slug: 'a', language: 'en', blob: 'b1' }, { change: 'created' as const, slug: 'a', language: 'de', blob: 'b2' }]],
    ['gone', [{ change: 'created' as const, slug: 'gone', language: null }, { change: 'deleted' as const, slug: 'gone', language: null }]],
  ]);
  const created = [
    { id: 'a', change: 'created' as const, slug: 'a', language: null },
    { id: 'a', change: 'created' as const, slug: 'a', language: 'de', blob: 'b2' },
    { id: 'a', change: 'created' as const, slug: 'a', language: 'en', blob: 'b1' },
  ];
  const live = liveNodes(source);
  assert.equal(copyFingerprint(live), copyFingerprint(createdNodes(created)!));
  assert.deepEqual(creatingEntries(live), created);
  // Anything but creations is no copy; another blob is another fingerprint.
  assert.equal(createdNodes([{ id: 'a', change: 'updated', slug: 'a', language: null }]), null);
  assert.notEqual(copyFingerprint(createdNodes([...created.slice(0, 2), { ...created[2], blob: 'b3' }])!), copyFingerprint(live));
});
