import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { pagedQuery } from '../src/schemas/common.ts';
import { checkQuery } from '../src/schemas/registry.ts';

/** The message of the 400 a query is refused with, or null when it passes. */
function refusal(id: string, values: Record<string, string>): string | null {
  try {
    checkQuery(id, { values, repeated: new Set() });
    return null;
  } catch (e) {
    assert.ok(e instanceof AppError);
    assert.equal(e.code, 'validation_failed');
    return e.message;
  }
}

describe('Paged queries (limit, cursor)', () => {
  test('every paged list takes its limit as a whole number from 1 to its largest page', () => {
    for (const [id, max] of [['VersionsQuery', 1000], ['FeedbackQuery', 1000], ['NodeHistoryQuery', 100], ['HistoryPageQuery', 100]] as const) {
      for (const ok of ['1', '9', '10', String(max - 1), String(max)]) assert.equal(refusal(id, { limit: ok }), null, `${id} limit=${ok}`);
      for (const bad of ['0', '01', '-1', '2.5', String(max + 1), '1e2', ' 5']) {
        assert.equal(refusal(id, { limit: bad }), `query/limit must be a whole number from 1 to ${max}`, `${id} limit=${bad}`);
      }
    }
  });

  test('each list names its own cursor when one is not as it was given, though two share an alphabet', () => {
    assert.equal(refusal('VersionsQuery', { cursor: 'not*a*cursor' }), "query/cursor must be the cursor of a previous page's Link header, as it was given");
    assert.equal(refusal('HistoryPageQuery', { cursor: 'not*a*cursor' }), 'query/cursor must be the `next` of a previous page, as it was given');
    assert.equal(refusal('FeedbackQuery', { cursor: 'abc' }), 'query/cursor must be the nextCursor of a previous page');
  });

  test('the builder writes the same limit pattern the lists always had', () => {
    const shape = { pattern: '^x$', description: 'd', hint: 'h' };
    assert.equal(pagedQuery({ max: 100, limit: 'l', cursor: shape }).limit.pattern, '^(?:[1-9][0-9]?|100)$');
    assert.equal(pagedQuery({ max: 1000, limit: 'l', cursor: shape }).limit.pattern, '^(?:[1-9][0-9]{0,2}|1000)$');
  });
});
