import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_LISTED } from '../../src/content/problems.ts';
import { md, versionJson } from '../helpers/content.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Content files built to hold tens of thousands of problems: finding each problem's line used to
 * scan the file once per problem, so a 1 MB version.json held the server for half a minute.
 */
describe('Content files with thousands of problems are answered quickly, the first ones listed', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const importFiles = (version: string, files: Array<{ path: string; content: string }>) =>
    s.request('POST', `/versions/${version}/import-files?dryRun=true`, { body: { files }, timeout: 30_000 });

  test('a version.json with 20,000 invalid entries: 100 errors with their lines, the rest counted', async () => {
    const nav = Array.from({ length: 20_000 }, (_, i) => ({ slug: `s${i}`, icon: '!' }));
    const started = performance.now();
    const res = await importFiles('many', [{ path: 'version.json', content: versionJson({ label: 'Many', nav }) }]);
    const ms = performance.now() - started;
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_content');
    assert.equal(res.body.error.errors.length, MAX_LISTED);
    // Each entry's icon is refused, and each node misses its primary-language file: two errors per entry.
    assert.equal(res.body.error.omittedErrors, 40_000 - MAX_LISTED);
    assert.match(res.body.error.message, /^40000 problem\(s\) in the content files \(the first 100 listed\)$/);
    assert.deepEqual(res.body.error.errors[1], { path: 'version.json', line: 9, message: 'nav[1].icon must be an icon name such as "book-open"' });
    assert.ok(ms < 5000, `answered in ${Math.round(ms)} ms`);
  });

  test('a Markdown file with 20,000 unknown frontmatter keys: accepted, 100 warnings listed', async () => {
    const extra = Array.from({ length: 20_000 }, (_, i) => `k${i}: 1\n`).join('');
    const res = await importFiles('keys', [
      { path: 'version.json', content: versionJson({ label: 'Keys', nav: ['a'] }) },
      { path: 'en/a.md', content: md('A', 'Body\n', extra) },
    ]);
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.equal(res.body.warnings.length, MAX_LISTED);
    assert.deepEqual(res.body.warnings[99], { path: 'en/a.md', line: 102, message: 'unknown frontmatter key "k99" is ignored' });
  });

});
