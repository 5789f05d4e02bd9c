import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BODY, HEADINGS, RankDoc, SUMMARY, TITLE } from '../src/index/rank-doc.ts';
import { RankIndex, type Staged, type Unit } from '../src/index/rank-index.ts';
import { words } from '../src/index/words.ts';
import { Random } from './helpers/generate.ts';

// A search by relevance reads each query word's documents best first and stops once no document left
// can enter the best k (RankIndex.top()). Stopping early must change nothing: for random queries over
// generated corpora, before and after documents are added, replaced and removed, the best k are the
// exhaustive ranking's first k (scoreAll(), every posting scored), the same documents in the same order
// with the same keys, and the count of matching documents is the exhaustive count.

const VOCABULARY = [
  'task', 'tasks', 'project', 'projects', 'reminder', 'reminders', 'export', 'exporting', 'billing', 'invoice',
  'invoices', 'calendar', 'share', 'sharing', 'permission', 'permissions', 'workspace', 'label', 'labels', 'archive',
  'archived', 'notification', 'notifications', 'integration', 'slack', 'webhook', 'webhooks', 'template', 'templates', 'filter',
  'and', 'the', 'with', 'your', 'settings', 'setting', 'setup', 'search', 'searching', 'schedule',
];
const CJK = ['設定', '管理', '通知', '共有', 'プロジェクト', 'タスク', '請求', 'ます'];

/** A word, the first ones far more often (as in real text). */
function word(r: Random, cjk: boolean): string {
  const list = cjk && r.chance(0.3) ? CJK : VOCABULARY;
  return list[Math.floor(list.length * r.next() ** 2.5)];
}

function text(r: Random, n: number, cjk: boolean): string {
  return Array.from({ length: n }, () => word(r, cjk)).join(' ');
}

function doc(r: Random, cjk: boolean): RankDoc {
  const d = new RankDoc();
  d.add(TITLE, text(r, r.int(1, 4), cjk));
  if (r.chance(0.8)) d.add(HEADINGS, text(r, r.int(1, 12), cjk));
  if (r.chance(0.9)) d.add(SUMMARY, text(r, r.int(3, 15), cjk));
  d.add(BODY, text(r, r.int(0, 300), cjk));
  return d;
}

/** The query's units as a search by relevance expands them (the last word also as a prefix). */
function unitsOf(index: RankIndex, q: string): Unit[] {
  const query = words(q);
  return query.flatMap((w, i) => index.expand(w.text, w.unspaced, i === query.length - 1).units);
}

/** A query as readers type them: one to four words, sometimes a typo, sometimes the last word cut short. */
function query(r: Random, cjk: boolean): string {
  const ws = Array.from({ length: r.int(1, 4) }, () => word(r, cjk));
  const last = ws.length - 1;
  if (r.chance(0.3) && ws[last].length > 4 && /^[a-z]+$/.test(ws[last])) ws[last] = ws[last].slice(0, r.int(2, ws[last].length - 1));
  if (r.chance(0.3) && ws[0].length >= 5 && /^[a-z]+$/.test(ws[0])) ws[0] = ws[0].slice(0, 2) + ws[0][3] + ws[0][2] + ws[0].slice(4);
  if (r.chance(0.05)) ws.push('zzzzzz');
  return ws.join(' ');
}

function assertSameAsExhaustive(index: RankIndex, q: string, k: number): void {
  const units = unitsOf(index, q);
  const all = index.scoreAll(units);
  const expected = [...all].map(([n, key]) => ({ n, key })).sort((a, b) => b.key - a.key || a.n - b.n).slice(0, k);
  const got = index.top(units, k);
  assert.equal(got.total, all.size, `total of "${q}"`);
  assert.deepEqual(got.top, expected, `best ${k} of "${q}"`);
}

describe('ranked search: the best k read early are the exhaustive best k', () => {
  for (const [seed, cjk] of [[1, false], [2, false], [3, true]] as const) {
    test(`random queries over a generated corpus (seed ${seed}${cjk ? ', with Japanese' : ''}), as it changes`, () => {
      const r = new Random(seed);
      const index = new RankIndex(cjk ? 'ja' : 'en');
      for (let i = 0; i < 600; i++) index.add(`doc-${i}`, doc(r, cjk));
      const queries = Array.from({ length: 60 }, () => query(r, cjk));
      for (const q of queries) for (const k of [1, 10, 100]) assertSameAsExhaustive(index, q, k);

      // Replaced, removed and new documents: impacts kept from before are stale and must not be used.
      for (let i = 0; i < 200; i++) index.add(`doc-${r.int(0, 599)}`, doc(r, cjk));
      for (let i = 0; i < 100; i++) index.remove(`doc-${r.int(0, 599)}`);
      for (let i = 600; i < 700; i++) index.add(`doc-${i}`, doc(r, cjk));
      for (const q of queries) for (const k of [10, 100]) assertSameAsExhaustive(index, q, k);
    });
  }

  test('a document staged and filed in slices is not ranked before it has its key, and is once it does', async () => {
    const r = new Random(7);
    const index = new RankIndex('en');
    for (let i = 0; i < 200; i++) index.add(`doc-${i}`, doc(r, false));
    const q = 'task reminder';
    const big = doc(r, false);
    big.add(TITLE, 'task reminder');
    // Enough distinct terms to be added in several slices.
    big.add(BODY, Array.from({ length: 1500 }, (_, i) => `word${i}`).join(' '));
    let pauses = 0;
    const pause = async () => {
      pauses++;
      // Half added: its postings are in, without a key; it must not count nor rank.
      assertSameAsExhaustive(index, q, 10);
      assert.ok(!index.top(unitsOf(index, q), 300).top.some((d) => index.keyAt(d.n) === 'big'));
    };
    const staged: Staged = [];
    await index.stage(staged, 'big', big, pause);
    await index.fileStaged(staged, pause);
    assertSameAsExhaustive(index, q, 10);
    assert.equal(index.keyAt(index.top(unitsOf(index, q), 1).top[0].n), 'big', 'the page titled with the query, once added, is first');
    assert.ok(pauses > 0, 'added in slices');
  });

  test('two indexes with the same terms keep their impacts apart', () => {
    const a = new RankIndex('en');
    const b = new RankIndex('en');
    const r = new Random(11);
    for (let i = 0; i < 100; i++) a.add(`a-${i}`, doc(r, false));
    for (let i = 0; i < 50; i++) b.add(`b-${i}`, doc(r, false));
    for (const q of ['task', 'export billing', 'share perm']) {
      assertSameAsExhaustive(a, q, 10);
      assertSameAsExhaustive(b, q, 10);
      assertSameAsExhaustive(a, q, 10);
    }
  });
});

describe('documents filed together (stage, fileStaged) make the index that adding them one by one makes', () => {
  const noPause = async () => {};
  /** Answers of queries, with the keys of the documents, so indexes numbered alike or not compare. */
  const answers = (index: RankIndex, queries: string[]) =>
    queries.map((q) => {
      const { top, total } = index.top(unitsOf(index, q), 50);
      return { q, total, top: top.map((d) => [index.keyAt(d.n), d.key]) };
    });
  const fileTogether = async (index: RankIndex, docs: Array<[string, RankDoc]>) => {
    const staged: Staged = [];
    for (const [key, d] of docs) await index.stage(staged, key, d, noPause);
    await index.fileStaged(staged, noPause);
  };

  for (const [seed, cjk] of [[21, false], [22, true]] as const) {
    test(`a new index byte for byte, and the same answers after replacing, removing and compacting (seed ${seed}${cjk ? ', with Japanese' : ''})`, async () => {
      const r = new Random(seed);
      const docs: Array<[string, RankDoc]> = Array.from({ length: 400 }, (_, i) => [`doc-${i}`, doc(r, cjk)]);
      const one = new RankIndex(cjk ? 'ja' : 'en');
      for (const [key, d] of docs) one.add(key, d);
      const together = new RankIndex(cjk ? 'ja' : 'en');
      await fileTogether(together, docs);
      assert.deepEqual(Buffer.from(together.save()), Buffer.from(one.save()));

      const queries = Array.from({ length: 40 }, () => query(r, cjk));
      // Batches that replace documents, add new ones, and the same key twice; enough of them that gone numbers outnumber 1,024 and the postings are compacted.
      for (let round = 0; round < 8; round++) {
        const batch: Array<[string, RankDoc]> = Array.from({ length: 180 }, () => [`doc-${r.int(0, 449)}`, doc(r, cjk)]);
        for (const [key, d] of batch) one.add(key, d);
        await fileTogether(together, batch);
        const gone = `doc-${r.int(0, 449)}`;
        one.remove(gone);
        together.remove(gone);
        assert.equal(together.size, one.size, `round ${round}`);
        assert.deepEqual(answers(together, queries), answers(one, queries), `round ${round}`);
      }
      for (const q of queries) assertSameAsExhaustive(together, q, 10);
    });
  }
});
