import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import git from 'isomorphic-git';
import { Repository } from '../src/storage/repository.ts';

const sysGit = (gitdir: string, ...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 64 << 20 });

/**
 * A language folder of hundreds of pages: each write patches the folder's stored tree where an id
 * changed and deflates again only the pieces of it that changed. Whatever the mix of writes (a page
 * changed, added, removed, a subfolder added), git and isomorphic-git must read exactly the folder
 * a full listing describes.
 */
describe('Writes to a large folder', () => {
  let dir: string;
  let gitdir: string;
  let repo: Repository;
  /** What the folder should hold: path → content. */
  const expected = new Map<string, string>();

  before(async () => {
    dir = fs.mkdtempSync(join(tmpdir(), 'help-large-folder-'));
    gitdir = join(dir, 'content.git');
    repo = await Repository.open(gitdir);
    // 900 pages: the tree is about 50 KB, stored and deflated in pieces.
    const files = new Map<string, string>();
    for (let i = 0; i < 900; i++) files.set(`en/page-${String(i).padStart(4, '0')}.md`, `---\ntitle: Page ${i}\n---\nBody of page ${i}.\n`);
    for (const [path, text] of files) expected.set(path, text);
    await repo.commit([await repo.writeFolder({ slug: 'v1', files })], { author: 'tester', message: 'Import' });
  });
  after(async () => {
    await repo.settle();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('changed, added and removed pages, one commit each: git lists and reads the folder as written, fsck --strict is clean', async () => {
    for (let k = 0; k < 60; k++) {
      const files = new Map<string, string | null>();
      const page = `en/page-${String((k * 37) % 900).padStart(4, '0')}.md`;
      if (k % 10 === 3) files.set(`en/new-${k}.md`, `---\ntitle: New ${k}\n---\nAdded.\n`);
      else if (k % 10 === 6 && expected.has(page)) files.set(page, null);
      else if (k % 10 === 8) files.set(`en/sub-${k}/inner.md`, `---\ntitle: Inner ${k}\n---\nIn a subfolder.\n`);
      else files.set(page, `---\ntitle: Page ${k}\n---\nRevision ${k}.\n`);
      for (const [path, text] of files) {
        if (text === null) expected.delete(path);
        else expected.set(path, text);
      }
      await repo.commit([await repo.writeFolder({ slug: 'v1', files })], { author: 'tester', message: `Write ${k}` });
    }
    // Read as the service reads: with no pack merge removing a pack meanwhile (one starts a second after the last commit).
    await repo.reading(async () => {
      execFileSync('git', ['--git-dir', gitdir, 'fsck', '--strict', '--no-progress'], { stdio: 'pipe' });
      const listed = sysGit(gitdir, 'ls-tree', '-r', '--name-only', 'main', 'v1/').trim().split('\n');
      assert.deepEqual(listed.sort(), [...expected.keys()].map((p) => `v1/${p}`).sort());
      for (const path of ['en/page-0000.md', 'en/page-0037.md', 'en/new-3.md', 'en/sub-8/inner.md']) {
        if (expected.has(path)) assert.equal(sysGit(gitdir, 'show', `main:v1/${path}`), expected.get(path));
      }
      // isomorphic-git inflates with its own code: it reads the pieced tree too.
      const oid = sysGit(gitdir, 'rev-parse', 'main:v1/en').trim();
      const { tree } = await git.readTree({ fs, gitdir, oid, cache: {} });
      assert.equal(tree.length, [...expected.keys()].filter((p) => p.startsWith('en/')).map((p) => p.split('/')[1]).filter((name, i, all) => all.indexOf(name) === i).length);
    });
  });

  test('a large file written again at the same length (as a stamps file is) reads back exactly, each version, in git and isomorphic-git', async () => {
    // 60 KB of lines with a stamp each: every write changes one stamp, in a different piece each time.
    const stamps = Array.from({ length: 1500 }, (_, i) => `  "page-${String(i).padStart(4, '0')}": "2026-01-01T00:00:00.000Z"`);
    const text = () => `{\n${stamps.join(',\n')}\n}\n`;
    const commits: Array<{ oid: string; text: string }> = [];
    for (let k = 0; k < 12; k++) {
      const line = (k * 211) % stamps.length;
      stamps[line] = stamps[line].replace(/"\d{4}-[^"]+"$/, `"2026-02-${String(10 + k).padStart(2, '0')}T00:00:00.000Z"`);
      const files = new Map([['.stamps/en.json', text()]]);
      commits.push({ oid: await repo.commit([await repo.writeFolder({ slug: 'v1', files })], { author: 'tester', message: `Stamps ${k}` }), text: text() });
    }
    // Read as the service reads: with no pack merge removing a pack meanwhile (one starts a second after the last commit).
    await repo.reading(async () => {
      execFileSync('git', ['--git-dir', gitdir, 'fsck', '--strict', '--no-progress'], { stdio: 'pipe' });
      for (const { oid, text: written } of commits) {
        assert.equal(sysGit(gitdir, 'show', `${oid}:v1/.stamps/en.json`), written);
        const blob = sysGit(gitdir, 'rev-parse', `${oid}:v1/.stamps/en.json`).trim();
        const read = await git.readBlob({ fs, gitdir, oid: blob, cache: {} });
        assert.equal(Buffer.from(read.blob).toString('utf8'), written);
      }
    });
  });

  test('a restart reads the head the writes left, and writes go on from it', async () => {
    const head = repo.headCommit;
    await repo.settle();
    const again = await Repository.open(gitdir);
    assert.equal(again.headCommit, head);
    const files = new Map([['en/page-0001.md', '---\ntitle: After restart\n---\nStill here.\n']]);
    await again.commit([await again.writeFolder({ slug: 'v1', files })], { author: 'tester', message: 'After restart' });
    assert.equal(sysGit(gitdir, 'show', 'main:v1/en/page-0001.md'), files.get('en/page-0001.md'));
    assert.equal(sysGit(gitdir, 'rev-parse', 'main~1').trim(), head);
    execFileSync('git', ['--git-dir', gitdir, 'fsck', '--strict', '--no-progress'], { stdio: 'pipe' });
    await again.settle();
  });
});
