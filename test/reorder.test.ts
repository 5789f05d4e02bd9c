import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from './helpers/assertions.ts';
import { changesOf } from './helpers/git.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

type Row = [slug: string, parentSlug: string | null, sortOrder: number];

interface TreeEntry {
  slug: string;
  sortOrder: number;
  children: TreeEntry[];
}

/** Every node of GET /nodes as [slug, parentSlug, sortOrder], in the answer's order. */
async function nodeRows(s: TestServer, version: string): Promise<Row[]> {
  const res = await s.request('GET', `/versions/${version}/nodes`);
  assert.equal(res.status, 200, res.text);
  return res.body.nodes.map((n: { slug: string; parentSlug: string | null; sortOrder: number }) => [n.slug, n.parentSlug, n.sortOrder]);
}

/** The tree of GET /tree flattened depth-first into [slug, parentSlug, sortOrder]. */
async function treeRows(s: TestServer, version: string): Promise<Row[]> {
  const res = await s.request('GET', `/versions/${version}/tree`);
  assert.equal(res.status, 200, res.text);
  const out: Row[] = [];
  const walk = (entries: TreeEntry[], parent: string | null) => {
    for (const e of entries) {
      out.push([e.slug, parent, e.sortOrder]);
      walk(e.children, e.slug);
    }
  };
  walk(res.body.tree, null);
  return out;
}

/** The nav of version.json at HEAD, flattened into [slug, parentSlug, sortOrder]: a key left out is the entry's index. */
function gitRows(s: TestServer, version: string): Row[] {
  const doc = JSON.parse(s.git('show', `HEAD:${version}/version.json`)) as { nav: unknown[] };
  const out: Row[] = [];
  const walk = (entries: unknown[], parent: string | null) => {
    entries.forEach((raw, i) => {
      const e = (typeof raw === 'string' ? { slug: raw } : raw) as { slug: string; sortOrder?: number; children?: unknown[] };
      out.push([e.slug, parent, e.sortOrder ?? i]);
      walk(e.children ?? [], e.slug);
    });
  };
  walk(doc.nav, null);
  return out;
}

const answerRows = (body: { items: Array<{ slug: string; parentSlug: string | null; sortOrder: number }> }): Row[] =>
  body.items.map((i) => [i.slug, i.parentSlug, i.sortOrder]);

/** s1 (section): a, b, c · s2 (section): d, e · f (topic) */
async function setup(s: TestServer, version: string): Promise<void> {
  await createVersion(s, version);
  await createNode(s, version, { slug: 's1', kind: 'section' });
  for (const slug of ['a', 'b', 'c']) await createNode(s, version, { slug, parentSlug: 's1' });
  await createNode(s, version, { slug: 's2', kind: 'section' });
  for (const slug of ['d', 'e']) await createNode(s, version, { slug, parentSlug: 's2' });
  await createNode(s, version, { slug: 'f' });
}

const INITIAL: Row[] = [
  ['s1', null, 0], ['a', 's1', 0], ['b', 's1', 1], ['c', 's1', 2],
  ['s2', null, 1], ['d', 's2', 0], ['e', 's2', 1],
  ['f', null, 2],
];

function reorder(s: TestServer, version: string, items: unknown[]) {
  return s.request('POST', `/versions/${version}/reorder`, { body: { items } });
}

describe('Reorder: POST /versions/{version}/reorder', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('the setup is in the expected document order', async () => {
    await setup(s, 'base');
    assert.deepEqual(await nodeRows(s, 'base'), INITIAL);
  });

  test('a full sibling reorder: the answer lists all nodes in document order with their sortOrder, in one commit touching only version.json', async () => {
    await setup(s, 'r1');
    const commits = s.commitCount();
    const res = await reorder(s, 'r1', [
      { slug: 'b', parentSlug: 's1', sortOrder: 2 },
      { slug: 'c', parentSlug: 's1', sortOrder: 0 },
      { slug: 'a', parentSlug: 's1', sortOrder: 1 },
    ]);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.version, 'r1');
    const expected: Row[] = [
      ['s1', null, 0], ['c', 's1', 0], ['a', 's1', 1], ['b', 's1', 2],
      ['s2', null, 1], ['d', 's2', 0], ['e', 's2', 1],
      ['f', null, 2],
    ];
    assert.deepEqual(answerRows(res.body), expected);
    for (const item of res.body.items) assert.deepEqual(Object.keys(item).sort(), ['parentSlug', 'slug', 'sortOrder']);
    assert.equal(s.commitCount(), commits + 1);
    assert.deepEqual(changesOf(s), ['M\tr1/version.json']);
    assert.match(s.git('log', '-1', '--format=%an').trim(), /^writer$/);
    assert.deepEqual(await nodeRows(s, 'r1'), expected);
    assert.deepEqual(await treeRows(s, 'r1'), expected);
    assert.deepEqual(gitRows(s, 'r1'), expected);
  });

  test('a full reorder of the top level moves whole subtrees', async () => {
    await setup(s, 'r2');
    const res = await reorder(s, 'r2', [
      { slug: 'f', parentSlug: null, sortOrder: 0 },
      { slug: 's2', parentSlug: null, sortOrder: 1 },
      { slug: 's1', parentSlug: null, sortOrder: 2 },
    ]);
    assert.equal(res.status, 200, res.text);
    const expected: Row[] = [
      ['f', null, 0],
      ['s2', null, 1], ['d', 's2', 0], ['e', 's2', 1],
      ['s1', null, 2], ['a', 's1', 0], ['b', 's1', 1], ['c', 's1', 2],
    ];
    assert.deepEqual(answerRows(res.body), expected);
    assert.deepEqual(await treeRows(s, 'r2'), expected);
    const topic = await s.request('GET', '/versions/r2/topics/f');
    assert.equal(topic.body.neighbours.previous, null);
    assert.equal(topic.body.neighbours.next.slug, 'd');
  });

  test('nodes move between parents with the keys sent; nobody else\'s key changes, and equal keys keep the node that was there first in front', async () => {
    await setup(s, 'r3');
    const commits = s.commitCount();
    const res = await reorder(s, 'r3', [
      { slug: 'a', parentSlug: 's2', sortOrder: 0 },
      { slug: 'e', parentSlug: 's1', sortOrder: 1 },
      { slug: 'f', parentSlug: 's2', sortOrder: 9 },
    ]);
    assert.equal(res.status, 200, res.text);
    const expected: Row[] = [
      ['s1', null, 0], ['b', 's1', 1], ['e', 's1', 1], ['c', 's1', 2],
      ['s2', null, 1], ['d', 's2', 0], ['a', 's2', 0], ['f', 's2', 9],
    ];
    assert.deepEqual(answerRows(res.body), expected);
    assert.equal(s.commitCount(), commits + 1);
    assert.deepEqual(changesOf(s), ['M\tr3/version.json']);
    assert.deepEqual(await nodeRows(s, 'r3'), expected);
    assert.deepEqual(await treeRows(s, 'r3'), expected);
    assert.deepEqual(gitRows(s, 'r3'), expected);
    const a = await s.request('GET', '/versions/r3/topics/a');
    assert.deepEqual(a.body.breadcrumbs.map((b: { slug: string }) => b.slug), ['s2']);
  });

  test('a node moves to the top level with parentSlug null', async () => {
    await setup(s, 'r4');
    const res = await reorder(s, 'r4', [{ slug: 'd', parentSlug: null, sortOrder: -1 }]);
    assert.equal(res.status, 200, res.text);
    const expected: Row[] = [
      ['d', null, -1],
      ['s1', null, 0], ['a', 's1', 0], ['b', 's1', 1], ['c', 's1', 2],
      ['s2', null, 1], ['e', 's2', 1],
      ['f', null, 2],
    ];
    assert.deepEqual(answerRows(res.body), expected);
    assert.deepEqual(await treeRows(s, 'r4'), expected);
  });

  test('partial items: siblings not named keep their keys and their relative order; fractions are kept as sent', async () => {
    await setup(s, 'r5');
    for (const slug of ['g', 'h']) await createNode(s, 'r5', { slug, parentSlug: 's1' });
    const res = await reorder(s, 'r5', [{ slug: 'h', parentSlug: 's1', sortOrder: 0.5 }]);
    assert.equal(res.status, 200, res.text);
    const s1Children = (rows: Row[]) => rows.filter((r) => r[1] === 's1').map((r) => [r[0], r[2]]);
    assert.deepEqual(s1Children(answerRows(res.body)), [['a', 0], ['h', 0.5], ['b', 1], ['c', 2], ['g', 3]]);
    const second = await reorder(s, 'r5', [
      { slug: 'a', parentSlug: 's1', sortOrder: 4 },
      { slug: 'c', parentSlug: 's1', sortOrder: 0 },
    ]);
    assert.equal(second.status, 200, second.text);
    // h, b, g keep their relative order around the moved c and a
    assert.deepEqual(s1Children(answerRows(second.body)), [['c', 0], ['h', 0.5], ['b', 1], ['g', 3], ['a', 4]]);
    assert.deepEqual(s1Children(await treeRows(s, 'r5')), [['c', 0], ['h', 0.5], ['b', 1], ['g', 3], ['a', 4]]);
    assert.deepEqual(s1Children(gitRows(s, 'r5')), [['c', 0], ['h', 0.5], ['b', 1], ['g', 3], ['a', 4]]);
    // the other parents are untouched
    assert.deepEqual((await nodeRows(s, 'r5')).filter((r) => r[1] !== 's1'), [['s1', null, 0], ['s2', null, 1], ['d', 's2', 0], ['e', 's2', 1], ['f', null, 2]]);
  });

  test('a parent may move under its former child when that child moves out in the same request', async () => {
    await setup(s, 'r6');
    const res = await reorder(s, 'r6', [
      { slug: 'a', parentSlug: null, sortOrder: 0 },
      { slug: 's1', parentSlug: 'a', sortOrder: 0 },
    ]);
    assert.equal(res.status, 200, res.text);
    const expected: Row[] = [
      ['a', null, 0], ['s1', 'a', 0], ['b', 's1', 1], ['c', 's1', 2],
      ['s2', null, 1], ['d', 's2', 0], ['e', 's2', 1],
      ['f', null, 2],
    ];
    assert.deepEqual(answerRows(res.body), expected);
    assert.deepEqual(await treeRows(s, 'r6'), expected);
  });

  test('the new order survives a restart', async () => {
    const before = await nodeRows(s, 'r3');
    s = await s.restart();
    assert.deepEqual(await nodeRows(s, 'r3'), before);
    assert.deepEqual(await treeRows(s, 'r3'), before);
  });

  const refusals: Array<{ name: string; items: unknown[]; status: number; code: string; check?: (err: any) => void }> = [
    {
      name: 'an unknown slug is 400 unknown_node',
      items: [{ slug: 'c', parentSlug: 's1', sortOrder: 0 }, { slug: 'ghost', parentSlug: null, sortOrder: 0 }],
      status: 400,
      code: 'unknown_node',
      check: (err) => {
        assert.equal(err.slug, 'ghost');
        assert.equal(err.field, 'body/items/1/slug');
      },
    },
    {
      name: 'an unknown parent is 400 unknown_parent',
      items: [{ slug: 'c', parentSlug: 's1', sortOrder: 0 }, { slug: 'a', parentSlug: 'ghost', sortOrder: 0 }],
      status: 400,
      code: 'unknown_parent',
      check: (err) => {
        assert.equal(err.parentSlug, 'ghost');
        assert.equal(err.field, 'body/items/1/parentSlug');
      },
    },
    {
      name: 'a parent under its own child is 400 cycle',
      items: [{ slug: 'f', parentSlug: null, sortOrder: 0 }, { slug: 's1', parentSlug: 'a', sortOrder: 0 }],
      status: 400,
      code: 'cycle',
      check: (err) => assert.equal(err.field, 'body/items/1/parentSlug'),
    },
    {
      name: 'a node under itself is 400 cycle',
      items: [{ slug: 'b', parentSlug: 'b', sortOrder: 0 }],
      status: 400,
      code: 'cycle',
    },
    {
      name: 'a 2-item swap cycle is 400 cycle',
      items: [{ slug: 's1', parentSlug: 's2', sortOrder: 0 }, { slug: 's2', parentSlug: 's1', sortOrder: 0 }],
      status: 400,
      code: 'cycle',
    },
    {
      name: 'a cycle through a moved descendant is 400 cycle',
      items: [{ slug: 'd', parentSlug: 'a', sortOrder: 0 }, { slug: 's1', parentSlug: 'd', sortOrder: 0 }],
      status: 400,
      code: 'cycle',
    },
    {
      name: 'a duplicate slug in items is 400 validation_failed',
      items: [{ slug: 'a', parentSlug: 's1', sortOrder: 2 }, { slug: 'b', parentSlug: 's1', sortOrder: 0 }, { slug: 'a', parentSlug: 's2', sortOrder: 0 }],
      status: 400,
      code: 'validation_failed',
      check: (err) => assert.equal(err.field, 'body/items/2/slug'),
    },
    {
      name: 'an empty items list is 400 validation_failed',
      items: [],
      status: 400,
      code: 'validation_failed',
      check: (err) => assert.equal(err.field, 'body/items'),
    },
    {
      name: 'a sortOrder that is not a number is 400 validation_failed',
      items: [{ slug: 'a', parentSlug: 's1', sortOrder: '1' }],
      status: 400,
      code: 'validation_failed',
      check: (err) => assert.equal(err.field, 'body/items/0/sortOrder'),
    },
    {
      name: 'an item without parentSlug is 400 validation_failed',
      items: [{ slug: 'a', sortOrder: 0 }],
      status: 400,
      code: 'validation_failed',
      check: (err) => assert.equal(err.field, 'body/items/0/parentSlug'),
    },
  ];

  for (const r of refusals) {
    test(`${r.name}, with NO commit and the previous order intact`, async () => {
      const version = `bad-${refusals.indexOf(r)}`;
      await setup(s, version);
      const nodesBefore = (await s.request('GET', `/versions/${version}/nodes`)).body;
      const head = s.git('rev-parse', 'main').trim();
      const commits = s.commitCount();
      const res = await reorder(s, version, r.items);
      const err = assertError(res, r.status, r.code);
      r.check?.(err);
      assert.equal(s.commitCount(), commits);
      assert.equal(s.git('rev-parse', 'main').trim(), head);
      const nodesAfter = (await s.request('GET', `/versions/${version}/nodes`)).body;
      assert.deepEqual(nodesAfter, nodesBefore);
      assert.deepEqual(await treeRows(s, version), INITIAL);
      // and a valid reorder afterwards still works from the untouched order
      const ok = await reorder(s, version, [{ slug: 'f', parentSlug: null, sortOrder: -1 }]);
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(answerRows(ok.body).slice(0, 2), [['f', null, -1], ['s1', null, 0]]);
    });
  }

  test('an unknown version is 404 not_found (resource version)', async () => {
    const res = await reorder(s, 'nope', [{ slug: 'a', parentSlug: null, sortOrder: 0 }]);
    assert.equal(assertError(res, 404, 'not_found').resource, 'version');
  });

  test('without a credential it is 401 and nothing moves', async () => {
    const before = await nodeRows(s, 'r1');
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions/r1/reorder', { key: null, body: { items: [{ slug: 'f', parentSlug: null, sortOrder: 0 }] } });
    assertError(res, 401, 'unauthorized');
    assert.equal(s.commitCount(), commits);
    assert.deepEqual(await nodeRows(s, 'r1'), before);
  });
});
