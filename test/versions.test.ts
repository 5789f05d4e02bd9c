import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, isIso } from './helpers/assertions.ts';
import { changedFiles } from './helpers/git.ts';
import { createNode, createVersion, startTestServer, waitForKey, type TestServer } from './helpers/server.ts';

describe('Versions', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('POST /versions creates a draft with defaults, one commit', async () => {
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions', { body: { slug: 'v1', label: 'Version 1' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.slug, 'v1');
    assert.equal(res.body.status, 'draft');
    assert.deepEqual(res.body.languages, ['en']);
    assert.equal(res.body.isLatest, false);
    assert.equal(s.commitCount(), commits + 1);
    assert.match(s.git('log', '-1', '--format=%an|%s'), /^writer\|Create version v1/);
  });

  test('GET /versions/{version} answers the version as the list gives it; anonymous callers see published ones only', async () => {
    const one = await s.request('GET', '/versions/v1');
    assert.equal(one.status, 200, one.text);
    const listed = (await s.request('GET', '/versions')).body.find((v: { slug: string }) => v.slug === 'v1');
    assert.deepEqual(one.body, listed);
    assertError(await s.request('GET', '/versions/v1', { key: null }), 404, 'not_found');
    assertError(await s.request('GET', '/versions/nope'), 404, 'not_found');
    // A change shows at once (the answer cache keys it to every version's changes).
    await s.request('GET', '/versions/v1');
    assert.equal((await s.request('PATCH', '/versions/v1', { body: { label: 'Version one' } })).status, 200);
    assert.equal((await s.request('GET', '/versions/v1')).body.label, 'Version one');
    assert.equal((await s.request('PATCH', '/versions/v1', { body: { label: 'Version 1' } })).status, 200);
  });

  test('POST /versions with a taken slug is 409 conflict and writes nothing', async () => {
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions', { body: { slug: 'v1', label: 'again' } });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'conflict');
    assert.equal(s.commitCount(), commits);
  });

  test('isLatest moves between published versions in one commit', async () => {
    await createVersion(s, 'a1', { status: 'published', isLatest: true });
    await createVersion(s, 'a2', { status: 'published' });
    const commits = s.commitCount();
    const res = await s.request('PATCH', '/versions/a2', { body: { isLatest: true } });
    assert.equal(res.status, 200);
    assert.equal(res.body.isLatest, true);
    assert.equal(s.commitCount(), commits + 1);
    const list = (await s.request('GET', '/versions')).body as Array<{ slug: string; isLatest: boolean }>;
    assert.deepEqual(list.filter((v) => v.isLatest).map((v) => v.slug), ['a2']);
    assert.deepEqual(changedFiles(s), ['a1/version.json', 'a2/version.json']);
  });

  describe('GET /versions', () => {
    let reader: string;
    before(async () => {
      await createVersion(s, 'l-draft');
      await createVersion(s, 'l-pub1', { status: 'published' });
      await createVersion(s, 'l-arch', { status: 'archived' });
      await createVersion(s, 'l-pub2', { status: 'published' });
      reader = await s.createKey({ name: 'list-reader', scopes: 'help:read' });
      await waitForKey(s, reader);
    });

    test('anonymous callers see published versions only, newest first', async () => {
      const res = await s.request('GET', '/versions', { key: null });
      assert.equal(res.status, 200);
      const list = res.body as VersionObj[];
      assert.ok(list.length > 0);
      assert.ok(list.every((v) => v.status === 'published'), `only published: ${list.map((v) => `${v.slug}:${v.status}`).join(', ')}`);
      const slugs = list.map((v) => v.slug);
      assert.ok(!slugs.includes('l-draft'));
      assert.ok(!slugs.includes('l-arch'));
      assert.ok(slugs.indexOf('l-pub2') >= 0 && slugs.indexOf('l-pub1') > slugs.indexOf('l-pub2'), `l-pub2 before l-pub1 in ${slugs.join(', ')}`);
      assertNewestFirst(list);
    });

    test('each version object carries every documented field', async () => {
      const list = (await s.request('GET', '/versions', { key: null })).body as VersionObj[];
      const v = list.find((x) => x.slug === 'l-pub1')!;
      assert.deepEqual(Object.keys(v).sort(), VERSION_FIELDS);
      assert.equal(v.label, 'Version l-pub1');
      assert.deepEqual(v.languages, ['en', 'de']);
      assert.equal(v.hidden, false);
      assert.equal(v.workingCopyOf, null);
    });

    test('a credential also sees draft and archived versions, newest first', async () => {
      for (const key of [s.key, reader]) {
        const res = await s.request('GET', '/versions', { key });
        assert.equal(res.status, 200);
        const list = res.body as VersionObj[];
        const mine = list.map((v) => v.slug).filter((slug) => slug.startsWith('l-'));
        assert.deepEqual(mine, ['l-pub2', 'l-arch', 'l-pub1', 'l-draft']);
        assert.equal(list.find((v) => v.slug === 'l-draft')!.status, 'draft');
        assert.equal(list.find((v) => v.slug === 'l-arch')!.status, 'archived');
        assertNewestFirst(list);
      }
    });

    test('includeWorkingCopies=true is accepted and does not show drafts to anonymous callers', async () => {
      const plain = await s.request('GET', '/versions', { key: null });
      const res = await s.request('GET', '/versions?includeWorkingCopies=true', { key: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, plain.body);
      assert.ok((res.body as VersionObj[]).every((v) => v.status === 'published' && v.hidden === false));
    });

    test('includeWorkingCopies=true with a credential is accepted and still lists drafts', async () => {
      const plain = await s.request('GET', '/versions');
      const res = await s.request('GET', '/versions?includeWorkingCopies=true');
      assert.equal(res.status, 200);
      const slugs = (res.body as VersionObj[]).map((v) => v.slug);
      for (const v of plain.body as VersionObj[]) assert.ok(slugs.includes(v.slug), `${v.slug} still listed`);
      assert.ok(slugs.includes('l-draft'));
      const off = await s.request('GET', '/versions?includeWorkingCopies=false');
      assert.equal(off.status, 200);
      assert.deepEqual(off.body, plain.body);
      assert.ok((plain.body as VersionObj[]).every((v) => v.hidden === false), 'no hidden versions without includeWorkingCopies');
    });

    test('an invalid includeWorkingCopies value is 400 naming query/includeWorkingCopies', async () => {
      const res = await s.request('GET', '/versions?includeWorkingCopies=yes');
      assertError(res, 400, 'validation_failed', { field: 'query/includeWorkingCopies' });
    });

    test('unknown query parameters are ignored', async () => {
      const plain = await s.request('GET', '/versions', { key: null });
      const res = await s.request('GET', '/versions?colour=blue', { key: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, plain.body);
    });
  });

  describe('POST /versions', () => {
    test('defaults: label is the slug, draft, languages [en], no sort order, not latest, not hidden', async () => {
      const res = await s.request('POST', '/versions', { body: { slug: 'c-defaults' } });
      assert.equal(res.status, 200);
      const v = res.body as VersionObj;
      assert.deepEqual(Object.keys(v).sort(), VERSION_FIELDS);
      assert.equal(v.slug, 'c-defaults');
      assert.equal(v.label, 'c-defaults');
      assert.equal(v.status, 'draft');
      assert.deepEqual(v.languages, ['en']);
      assert.equal(v.sortOrder, null);
      assert.equal(v.isLatest, false);
      assert.equal(v.hidden, false);
      assert.equal(v.workingCopyOf, null);
      assert.ok(isIso(v.createdAt), v.createdAt);
      assert.equal(v.updatedAt, v.createdAt);
      const stored = versionFile(s, 'c-defaults');
      assert.equal(stored.status, 'draft');
      assert.deepEqual(stored.languages, ['en']);
      assert.equal(stored.isLatest, false);
    });

    test('supplied fields are stored and listed as given', async () => {
      const res = await s.request('POST', '/versions', { body: { slug: 'c-full', label: 'Full', status: 'published', languages: ['de', 'en'], sortOrder: 7 } });
      assert.equal(res.status, 200);
      assert.equal(res.body.label, 'Full');
      assert.equal(res.body.status, 'published');
      assert.deepEqual(res.body.languages, ['de', 'en']);
      assert.equal(res.body.sortOrder, 7);
      const listed = ((await s.request('GET', '/versions', { key: null })).body as VersionObj[]).find((v) => v.slug === 'c-full');
      assert.deepEqual(listed, res.body);
    });

    test('languages are canonicalized (pt-br → pt-BR)', async () => {
      const res = await s.request('POST', '/versions', { body: { slug: 'c-langs', languages: ['EN', 'pt-br', 'zh-hant-tw'] } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.languages, ['en', 'pt-BR', 'zh-Hant-TW']);
      assert.deepEqual(versionFile(s, 'c-langs').languages, ['en', 'pt-BR', 'zh-Hant-TW']);
      const listed = ((await s.request('GET', '/versions')).body as VersionObj[]).find((v) => v.slug === 'c-langs')!;
      assert.deepEqual(listed.languages, ['en', 'pt-BR', 'zh-Hant-TW']);
    });

    test('a language listed twice after canonicalization is 400 naming body/languages', async () => {
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions', { body: { slug: 'c-dup-lang', languages: ['pt-br', 'pt-BR'] } });
      assertError(res, 400, 'validation_failed', { field: 'body/languages' });
      assert.equal(s.commitCount(), commits);
    });

    test('an invalid language code is 400 naming the entry', async () => {
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions', { body: { slug: 'c-bad-lang', languages: ['en', 'english'] } });
      assertError(res, 400, 'validation_failed', { field: 'body/languages/1' });
      assert.equal(s.commitCount(), commits);
    });

    for (const slug of ['Bad Slug', 'UPPER', '../escape', 'a--b', '-lead', 'latest', '', 'x'.repeat(65)]) {
      test(`an invalid slug ${JSON.stringify(slug.length > 20 ? `${slug.slice(0, 8)}…(${slug.length})` : slug)} is 400 naming body/slug and writes nothing`, async () => {
        const commits = s.commitCount();
        const res = await s.request('POST', '/versions', { body: { slug, label: 'bad' } });
        assertError(res, 400, 'validation_failed', { field: 'body/slug' });
        assert.ok(Array.isArray(res.body.error.errors) && res.body.error.errors.some((e: { field: string }) => e.field === 'body/slug'));
        assert.equal(s.commitCount(), commits);
      });
    }

    test('a missing slug is 400 naming body/slug', async () => {
      const res = await s.request('POST', '/versions', { body: { label: 'no slug' } });
      assertError(res, 400, 'validation_failed', { field: 'body/slug' });
    });

    test('an unknown body field is 400 naming it and writes nothing', async () => {
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions', { body: { slug: 'c-unknown', label: 'x', colour: 'blue' } });
      assertError(res, 400, 'validation_failed', { field: 'body/colour' });
      assert.equal(s.commitCount(), commits);
      const slugs = ((await s.request('GET', '/versions')).body as VersionObj[]).map((v) => v.slug);
      assert.ok(!slugs.includes('c-unknown'));
    });

    test('hidden and workingCopyOf cannot be set by a client (unknown fields)', async () => {
      for (const body of [{ slug: 'c-hidden', hidden: true }, { slug: 'c-wip', workingCopyOf: 'v1' }]) {
        const res = await s.request('POST', '/versions', { body });
        assertError(res, 400, 'validation_failed', { field: `body/${Object.keys(body)[1]}` });
      }
    });

    test('isLatest with a draft is 409 invalid_state and writes nothing', async () => {
      const commits = s.commitCount();
      for (const body of [{ slug: 'c-latest-draft', isLatest: true }, { slug: 'c-latest-draft', status: 'draft', isLatest: true }, { slug: 'c-latest-draft', status: 'archived', isLatest: true }]) {
        const res = await s.request('POST', '/versions', { body });
        assertError(res, 409, 'invalid_state');
      }
      assert.equal(s.commitCount(), commits);
      const slugs = ((await s.request('GET', '/versions')).body as VersionObj[]).map((v) => v.slug);
      assert.ok(!slugs.includes('c-latest-draft'));
    });

    test('a published version created with isLatest takes the flag from the previous latest in one commit', async () => {
      await createVersion(s, 'c-old-latest', { status: 'published', isLatest: true });
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions', { body: { slug: 'c-new-latest', status: 'published', isLatest: true } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.isLatest, true);
      assert.equal(s.commitCount(), commits + 1);
      const list = (await s.request('GET', '/versions', { key: null })).body as VersionObj[];
      assert.deepEqual(list.filter((v) => v.isLatest).map((v) => v.slug), ['c-new-latest']);
      assert.equal(versionFile(s, 'c-old-latest').isLatest, false);
    });

    test('without a key it is 401 with WWW-Authenticate and writes nothing', async () => {
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions', { key: null, body: { slug: 'c-anon' } });
      assertError(res, 401, 'unauthorized');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal(s.commitCount(), commits);
    });

    test('a help:read-only key gets 403 insufficient_scope and writes nothing', async () => {
      const reader = await s.createKey({ name: 'post-reader', scopes: 'help:read' });
      await waitForKey(s, reader);
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions', { key: reader, body: { slug: 'c-reader' } });
      assertError(res, 403, 'insufficient_scope');
      assert.equal(s.commitCount(), commits);
      const slugs = ((await s.request('GET', '/versions')).body as VersionObj[]).map((v) => v.slug);
      assert.ok(!slugs.includes('c-reader'));
    });
  });

  describe('PATCH /versions/{version}', () => {
    test('only supplied fields change; one commit by the key', async () => {
      const created = await createVersion(s, 'p-fields', { label: 'Before', sortOrder: 3 });
      const commits = s.commitCount();
      const res = await s.request('PATCH', '/versions/p-fields', { body: { label: 'After' } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual({ ...res.body, updatedAt: null }, { ...created, label: 'After', updatedAt: null });
      assert.ok(res.body.updatedAt > created.updatedAt, 'updatedAt moves on');
      assert.equal(res.body.createdAt, created.createdAt);
      assert.equal(s.commitCount(), commits + 1);
      assert.match(s.git('log', '-1', '--format=%an|%s'), /^writer\|Update version p-fields/);
      assert.equal(versionFile(s, 'p-fields').label, 'After');

      const second = await s.request('PATCH', '/versions/p-fields', { body: { sortOrder: null } });
      assert.equal(second.status, 200);
      assert.equal(second.body.sortOrder, null);
      assert.equal(second.body.label, 'After');
      assert.deepEqual(second.body.languages, ['en', 'de']);
    });

    test('an empty body changes nothing but the stamp', async () => {
      const created = await createVersion(s, 'p-empty', { sortOrder: 1 });
      const res = await s.request('PATCH', '/versions/p-empty', { body: {} });
      assert.equal(res.status, 200);
      assert.deepEqual({ ...res.body, updatedAt: null }, { ...created, updatedAt: null });
    });

    test('status moves draft → published → archived, and anonymous visibility follows', async () => {
      await createVersion(s, 'p-life');
      const anonSlugs = async () => ((await s.request('GET', '/versions', { key: null })).body as VersionObj[]).map((v) => v.slug);
      assert.ok(!(await anonSlugs()).includes('p-life'));

      const published = await s.request('PATCH', '/versions/p-life', { body: { status: 'published' } });
      assert.equal(published.status, 200);
      assert.equal(published.body.status, 'published');
      assert.ok((await anonSlugs()).includes('p-life'));
      assert.equal((await s.request('GET', '/versions/p-life/tree', { key: null })).status, 200);

      const archived = await s.request('PATCH', '/versions/p-life', { body: { status: 'archived' } });
      assert.equal(archived.status, 200);
      assert.equal(archived.body.status, 'archived');
      assert.ok(!(await anonSlugs()).includes('p-life'));
      assert.equal((await s.request('GET', '/versions/p-life/tree', { key: null })).status, 404);
      assert.equal(versionFile(s, 'p-life').status, 'archived');
    });

    test('archiving the latest version drops isLatest', async () => {
      await createVersion(s, 'p-arch-latest', { status: 'published', isLatest: true });
      const res = await s.request('PATCH', '/versions/p-arch-latest', { body: { status: 'archived' } });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'archived');
      assert.equal(res.body.isLatest, false);
      assert.equal(versionFile(s, 'p-arch-latest').isLatest, false);
      const list = (await s.request('GET', '/versions')).body as VersionObj[];
      assert.equal(list.find((v) => v.slug === 'p-arch-latest')!.isLatest, false);
    });

    test('moving the latest version back to draft drops isLatest', async () => {
      await createVersion(s, 'p-draft-latest', { status: 'published', isLatest: true });
      const res = await s.request('PATCH', '/versions/p-draft-latest', { body: { status: 'draft' } });
      assert.equal(res.status, 200);
      assert.equal(res.body.isLatest, false);
    });

    test('isLatest on a draft is 409 invalid_state and writes nothing', async () => {
      const created = await createVersion(s, 'p-latest-draft');
      const commits = s.commitCount();
      const res = await s.request('PATCH', '/versions/p-latest-draft', { body: { isLatest: true } });
      assertError(res, 409, 'invalid_state');
      assert.equal(s.commitCount(), commits);
      const listed = ((await s.request('GET', '/versions')).body as VersionObj[]).find((v) => v.slug === 'p-latest-draft');
      assert.deepEqual(listed, created);
    });

    test('isLatest together with archiving is 409 invalid_state', async () => {
      await createVersion(s, 'p-latest-arch', { status: 'published' });
      const commits = s.commitCount();
      const res = await s.request('PATCH', '/versions/p-latest-arch', { body: { status: 'archived', isLatest: true } });
      assertError(res, 409, 'invalid_state');
      assert.equal(s.commitCount(), commits);
    });

    test('publishing and marking latest in one PATCH works', async () => {
      await createVersion(s, 'p-pub-latest');
      const res = await s.request('PATCH', '/versions/p-pub-latest', { body: { status: 'published', isLatest: true } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'published');
      assert.equal(res.body.isLatest, true);
      const list = (await s.request('GET', '/versions', { key: null })).body as VersionObj[];
      assert.deepEqual(list.filter((v) => v.isLatest).map((v) => v.slug), ['p-pub-latest']);
    });

    test('removing a language that has translations is 409 language_in_use and writes nothing', async () => {
      await createVersion(s, 'p-langs', { languages: ['en', 'de', 'fr'] });
      await createNode(s, 'p-langs', { slug: 'intro', translations: { en: { title: 'Intro' }, de: { title: 'Einführung' } } });
      const commits = s.commitCount();
      const res = await s.request('PATCH', '/versions/p-langs', { body: { languages: ['en'] } });
      assertError(res, 409, 'language_in_use', { languages: ['de'] });
      assert.equal(s.commitCount(), commits);
      assert.deepEqual(versionFile(s, 'p-langs').languages, ['en', 'de', 'fr']);
      const translation = await s.request('GET', '/versions/p-langs/topics/intro/translations/de');
      assert.equal(translation.status, 200);
    });

    test('removing a language without translations works; added languages are canonicalized', async () => {
      const res = await s.request('PATCH', '/versions/p-langs', { body: { languages: ['en', 'de', 'pt-br'] } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.languages, ['en', 'de', 'pt-BR']);
      assert.deepEqual(versionFile(s, 'p-langs').languages, ['en', 'de', 'pt-BR']);
    });

    test('making a language primary while nodes lack it is 400 primary_language_required; once they have it, 200', async () => {
      await createVersion(s, 'p-primary', { languages: ['en', 'de'] });
      await createNode(s, 'p-primary', { slug: 'a', translations: { en: { title: 'A' }, de: { title: 'A de' } } });
      await createNode(s, 'p-primary', { slug: 'b', translations: { en: { title: 'B' } } });
      const commits = s.commitCount();
      assertError(await s.request('PATCH', '/versions/p-primary', { body: { languages: ['de', 'en'] } }), 400, 'primary_language_required');
      assert.equal(s.commitCount(), commits);
      assert.deepEqual(versionFile(s, 'p-primary').languages, ['en', 'de']);
      const put = await s.request('PUT', '/versions/p-primary/topics/b/translations/de', { body: { title: 'B de' } });
      assert.equal(put.status, 200, put.text);
      const res = await s.request('PATCH', '/versions/p-primary', { body: { languages: ['de', 'en'] } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.languages, ['de', 'en']);
    });

    test('isLatest: false takes the flag away; isLatest: true on the latest version keeps it, touching only its own file', async () => {
      await createVersion(s, 'p-unlatest', { status: 'published', isLatest: true });
      const again = await s.request('PATCH', '/versions/p-unlatest', { body: { isLatest: true } });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.isLatest, true);
      assert.deepEqual(changedFiles(s, { stamps: true }), ['p-unlatest/.stamps/nodes.json'], 'only its stamp: version.json says the same');
      const off = await s.request('PATCH', '/versions/p-unlatest', { body: { isLatest: false } });
      assert.equal(off.status, 200, off.text);
      assert.equal(off.body.isLatest, false);
      assert.equal(off.body.status, 'published');
      const list = (await s.request('GET', '/versions')).body as VersionObj[];
      assert.deepEqual(list.filter((v) => v.isLatest), []);
    });

    test('invalid field values are 400 naming the field', async () => {
      await createVersion(s, 'p-invalid');
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ label: '' }, 'body/label'],
        [{ label: 5 }, 'body/label'],
        [{ sortOrder: 'first' }, 'body/sortOrder'],
        [{ languages: [] }, 'body/languages'],
        [{ languages: ['en', 'en'] }, 'body/languages'],
        [{ isLatest: 'yes' }, 'body/isLatest'],
        [{ expectedUpdatedAt: 'yesterday' }, 'body/expectedUpdatedAt'],
      ];
      const commits = s.commitCount();
      for (const [body, field] of cases) assertError(await s.request('PATCH', '/versions/p-invalid', { body }), 400, 'validation_failed', { field });
      assert.equal(s.commitCount(), commits);
    });

    test('a stale expectedUpdatedAt is 409 stale_write with currentUpdatedAt; the current one succeeds', async () => {
      const created = await createVersion(s, 'p-stale');
      const first = await s.request('PATCH', '/versions/p-stale', { body: { label: 'First', expectedUpdatedAt: created.updatedAt } });
      assert.equal(first.status, 200, first.text);
      const commits = s.commitCount();
      const stale = await s.request('PATCH', '/versions/p-stale', { body: { label: 'Second', expectedUpdatedAt: created.updatedAt } });
      assertError(stale, 409, 'stale_write', { currentUpdatedAt: first.body.updatedAt });
      assert.equal(s.commitCount(), commits);
      assert.equal(versionFile(s, 'p-stale').label, 'First');
      const fresh = await s.request('PATCH', '/versions/p-stale', { body: { label: 'Second', expectedUpdatedAt: first.body.updatedAt } });
      assert.equal(fresh.status, 200);
      assert.equal(fresh.body.label, 'Second');
    });

    test('a stale If-Unmodified-Since header is 409 stale_write', async () => {
      const created = await createVersion(s, 'p-stale-header');
      await s.request('PATCH', '/versions/p-stale-header', { body: { label: 'Changed' } });
      const res = await s.request('PATCH', '/versions/p-stale-header', { body: { label: 'Again' }, headers: { 'if-unmodified-since': created.updatedAt } });
      assertError(res, 409, 'stale_write');
    });

    test('an unknown version is 404 not_found (resource version) and writes nothing', async () => {
      const commits = s.commitCount();
      const res = await s.request('PATCH', '/versions/p-nowhere', { body: { label: 'x' } });
      assertError(res, 404, 'not_found', { resource: 'version' });
      assert.equal(s.commitCount(), commits);
    });

    test('the slug cannot be changed (unknown field body/slug)', async () => {
      await createVersion(s, 'p-rename');
      const res = await s.request('PATCH', '/versions/p-rename', { body: { slug: 'p-renamed' } });
      assertError(res, 400, 'validation_failed', { field: 'body/slug' });
    });

    test('an invalid status is 400 naming body/status', async () => {
      const res = await s.request('PATCH', '/versions/p-rename', { body: { status: 'live' } });
      assertError(res, 400, 'validation_failed', { field: 'body/status' });
    });

    test('without a key it is 401; with a help:read-only key 403', async () => {
      const reader = await s.createKey({ name: 'patch-reader', scopes: 'help:read' });
      await waitForKey(s, reader);
      const commits = s.commitCount();
      assertError(await s.request('PATCH', '/versions/p-rename', { key: null, body: { label: 'x' } }), 401, 'unauthorized');
      assertError(await s.request('PATCH', '/versions/p-rename', { key: reader, body: { label: 'x' } }), 403, 'insufficient_scope');
      assert.equal(s.commitCount(), commits);
    });
  });

  describe('DELETE /versions/{version}', () => {
    test('answers { ok: true } and removes the version, its nodes and translations in one commit', async () => {
      await createVersion(s, 'd-gone', { status: 'published' });
      await createNode(s, 'd-gone', { slug: 'sec', kind: 'section', translations: { en: { title: 'Section' } } });
      await createNode(s, 'd-gone', { slug: 'child', parentSlug: 'sec', translations: { en: { title: 'Child', bodyMd: 'Hello\n' }, de: { title: 'Kind' } } });
      await createVersion(s, 'd-kept');
      await createNode(s, 'd-kept', { slug: 'sec' });
      const keptBefore = s.git('ls-tree', '-r', 'main', 'd-kept');
      const filesBefore = s.git('ls-tree', '-r', '--name-only', 'main', 'd-gone').trim().split('\n').sort();
      assert.deepEqual(filesBefore, ['d-gone/.stamps/de.json', 'd-gone/.stamps/en.json', 'd-gone/.stamps/nodes.json', 'd-gone/de/child.md', 'd-gone/en/child.md', 'd-gone/en/sec.md', 'd-gone/version.json']);
      const commits = s.commitCount();

      const res = await s.request('DELETE', '/versions/d-gone');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { ok: true });

      assert.equal(s.commitCount(), commits + 1);
      assert.match(s.git('log', '-1', '--format=%an|%s'), /^writer\|Delete version d-gone/);
      const changed = s.git('show', '--name-status', '--format=', 'HEAD').trim().split('\n').map((l) => l.split('\t'));
      assert.ok(changed.every(([status]) => status === 'D'), `only deletions: ${JSON.stringify(changed)}`);
      assert.deepEqual(changed.map(([, path]) => path).sort(), filesBefore);
      assert.equal(s.git('ls-tree', 'main', 'd-gone').trim(), '');
      assert.equal(s.git('ls-tree', '-r', 'main', 'd-kept'), keptBefore);
    });

    test('after delete, every read of the version is 404 and it is not listed', async () => {
      for (const path of ['/versions/d-gone/tree', '/versions/d-gone/nodes', '/versions/d-gone/topics/child', '/versions/d-gone/topics/child/translations/en']) {
        assertError(await s.request('GET', path), 404, 'not_found', { resource: 'version' });
        assertError(await s.request('GET', path, { key: null }), 404, 'not_found');
      }
      const slugs = ((await s.request('GET', '/versions')).body as VersionObj[]).map((v) => v.slug);
      assert.ok(!slugs.includes('d-gone'));
      assertError(await s.request('PATCH', '/versions/d-gone', { body: { label: 'x' } }), 404, 'not_found', { resource: 'version' });
    });

    test('a version re-created under a deleted slug starts without nodes', async () => {
      await createVersion(s, 'd-gone');
      const res = await s.request('GET', '/versions/d-gone/nodes');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.nodes, []);
      assert.deepEqual(s.git('ls-tree', '-r', '--name-only', 'main', 'd-gone').trim().split('\n'), ['d-gone/.stamps/nodes.json', 'd-gone/version.json']);
    });

    test('deleting the latest version leaves no version latest', async () => {
      await createVersion(s, 'd-latest', { status: 'published', isLatest: true });
      const res = await s.request('DELETE', '/versions/d-latest');
      assert.equal(res.status, 200);
      const list = (await s.request('GET', '/versions')).body as VersionObj[];
      assert.deepEqual(list.filter((v) => v.isLatest), []);
    });

    test('an unknown version is 404 not_found and writes nothing', async () => {
      const commits = s.commitCount();
      const res = await s.request('DELETE', '/versions/d-nowhere');
      assertError(res, 404, 'not_found', { resource: 'version' });
      assert.equal(s.commitCount(), commits);
    });

    test('without a key it is 401; with a help:read-only key 403; nothing is deleted', async () => {
      await createVersion(s, 'd-protected');
      const reader = await s.createKey({ name: 'delete-reader', scopes: 'help:read' });
      await waitForKey(s, reader);
      const commits = s.commitCount();
      assertError(await s.request('DELETE', '/versions/d-protected', { key: null }), 401, 'unauthorized');
      assertError(await s.request('DELETE', '/versions/d-protected', { key: reader }), 403, 'insufficient_scope');
      assert.equal(s.commitCount(), commits);
      assert.equal((await s.request('GET', '/versions/d-protected/nodes')).status, 200);
    });
  });

  describe('POST /versions/{version}/duplicate', () => {
    let sourceNodes: unknown;
    before(async () => {
      await createVersion(s, 'dup-src', { label: 'Source', languages: ['en', 'de'], sortOrder: 4 });
      await createNode(s, 'dup-src', { slug: 'start', kind: 'section', icon: 'rocket', translations: { en: { title: 'Start', summary: 'Begin here' }, de: { title: 'Anfang' } } });
      await createNode(s, 'dup-src', { slug: 'install', parentSlug: 'start', translations: { en: { title: 'Install', bodyMd: '# Install\n\nRun it.\n' }, de: { title: 'Installieren', bodyMd: 'Grüße\n' } } });
      await createNode(s, 'dup-src', { slug: 'configure', parentSlug: 'start', sortOrder: 0 });
      await createNode(s, 'dup-src', { slug: 'faq' });
      sourceNodes = (await s.request('GET', '/versions/dup-src/nodes?include=bodies')).body.nodes;
    });

    test('deep copy: the copy\'s nodes equal the source\'s apart from the version slug, node ids included', async () => {
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions/dup-src/duplicate', { body: { slug: 'dup-copy' } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body), ['version']);
      const v = res.body.version as VersionObj;
      assert.equal(v.slug, 'dup-copy');
      assert.equal(v.label, 'dup-copy');
      assert.equal(v.status, 'draft');
      assert.equal(v.isLatest, false);
      assert.equal(v.hidden, false);
      assert.equal(v.workingCopyOf, null);
      assert.deepEqual(v.languages, ['en', 'de']);
      assert.equal(s.commitCount(), commits + 1);
      assert.match(s.git('log', '-1', '--format=%an|%s'), /^writer\|Duplicate version dup-src as dup-copy/);

      const source = await s.request('GET', '/versions/dup-src/nodes?include=bodies');
      const copy = await s.request('GET', '/versions/dup-copy/nodes?include=bodies');
      assert.equal(copy.status, 200);
      assert.equal(copy.body.version, 'dup-copy');
      assert.deepEqual({ ...copy.body, version: 'dup-src' }, source.body);
      assert.deepEqual(
        (copy.body.nodes as Array<{ id: string }>).map((n) => n.id),
        (source.body.nodes as Array<{ id: string }>).map((n) => n.id),
      );
      assert.deepEqual(source.body.nodes, sourceNodes, 'the source is unchanged');

      const tree = (await s.request('GET', '/versions/dup-copy/tree?language=de')).body;
      const sourceTree = (await s.request('GET', '/versions/dup-src/tree?language=de')).body;
      assert.deepEqual(tree.tree, sourceTree.tree);
    });

    test('in git the copy\'s Markdown files are the source\'s, added in one commit', async () => {
      const blobs = (slug: string) =>
        s.git('ls-tree', '-r', 'main', slug).trim().split('\n').map((line) => {
          const [meta, path] = line.split('\t');
          return `${meta.split(' ')[2]} ${path.slice(slug.length + 1)}`;
        }).filter((l) => !l.endsWith(' version.json') && !l.endsWith(' .stamps/nodes.json')).sort();
      assert.deepEqual(blobs('dup-copy'), blobs('dup-src'));
      // six Markdown files and the stamps of their two languages, which the translations keep
      assert.equal(blobs('dup-copy').length, 8);
      const changed = s.git('show', '--name-status', '--format=', 'HEAD').trim().split('\n').map((l) => l.split('\t'));
      assert.ok(changed.every(([status, path]) => status === 'A' && path.startsWith('dup-copy/')), JSON.stringify(changed));
      assert.equal(changed.length, 8 + 2, 'and version.json, .stamps/nodes.json');
      assert.equal(s.git('fsck', '--strict').trim(), '');
    });

    test('a given label and status are honoured', async () => {
      const res = await s.request('POST', '/versions/dup-src/duplicate', { body: { slug: 'dup-pub', label: 'Published copy', status: 'published' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.version.label, 'Published copy');
      assert.equal(res.body.version.status, 'published');
      assert.equal(res.body.version.isLatest, false);
      const anon = await s.request('GET', '/versions/dup-pub/nodes', { key: null });
      assert.equal(anon.status, 200);
      assert.equal(anon.body.nodes.length, 4);
    });

    test('a copy of the latest version is never latest, even when published', async () => {
      await createVersion(s, 'dup-latest', { status: 'published', isLatest: true });
      await createNode(s, 'dup-latest', { slug: 'only' });
      for (const [slug, status] of [['dup-latest-a', undefined], ['dup-latest-b', 'published']] as const) {
        const res = await s.request('POST', '/versions/dup-latest/duplicate', { body: status ? { slug, status } : { slug } });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.version.isLatest, false);
        assert.equal(versionFile(s, slug).isLatest, false);
      }
      const list = (await s.request('GET', '/versions')).body as VersionObj[];
      assert.deepEqual(list.filter((v) => v.isLatest).map((v) => v.slug), ['dup-latest']);
    });

    test('isLatest cannot be asked for on a duplicate (unknown field)', async () => {
      const res = await s.request('POST', '/versions/dup-latest/duplicate', { body: { slug: 'dup-latest-c', status: 'published', isLatest: true } });
      assertError(res, 400, 'validation_failed', { field: 'body/isLatest' });
    });

    test('an existing target slug is 409 conflict and writes nothing', async () => {
      const commits = s.commitCount();
      const before = (await s.request('GET', '/versions/dup-copy/nodes?include=bodies')).body;
      const res = await s.request('POST', '/versions/dup-src/duplicate', { body: { slug: 'dup-copy' } });
      assertError(res, 409, 'conflict');
      const existing = await s.request('POST', '/versions/dup-src/duplicate', { body: { slug: 'dup-latest' } });
      assertError(existing, 409, 'conflict');
      assertError(await s.request('POST', '/versions/dup-src/duplicate', { body: { slug: 'dup-src' } }), 409, 'conflict');
      assert.equal(s.commitCount(), commits);
      assert.deepEqual((await s.request('GET', '/versions/dup-copy/nodes?include=bodies')).body, before);
    });

    test('an unknown source is 404 not_found and writes nothing', async () => {
      const commits = s.commitCount();
      const res = await s.request('POST', '/versions/dup-nowhere/duplicate', { body: { slug: 'dup-from-nowhere' } });
      assertError(res, 404, 'not_found', { resource: 'version' });
      assert.equal(s.commitCount(), commits);
      const slugs = ((await s.request('GET', '/versions')).body as VersionObj[]).map((v) => v.slug);
      assert.ok(!slugs.includes('dup-from-nowhere'));
    });

    test('an invalid target slug is 400 naming body/slug', async () => {
      const res = await s.request('POST', '/versions/dup-src/duplicate', { body: { slug: 'Not Valid' } });
      assertError(res, 400, 'validation_failed', { field: 'body/slug' });
    });

    test('later edits to the copy do not change the source', async () => {
      const sourceFiles = s.git('ls-tree', '-r', 'main', 'dup-src');
      const edits = [
        await s.request('PATCH', '/versions/dup-copy/nodes/install', { body: { translations: { en: { title: 'Install (copy)' } }, icon: 'wrench' } }),
        await s.request('PUT', '/versions/dup-copy/topics/start/translations/de', { body: { title: 'Start (Kopie)', bodyMd: 'Neu\n' } }),
        await s.request('DELETE', '/versions/dup-copy/topics/install/translations/de'),
        await s.request('DELETE', '/versions/dup-copy/nodes/faq'),
        await s.request('POST', '/versions/dup-copy/nodes', { body: { slug: 'extra', translations: { en: { title: 'Extra' } } } }),
        await s.request('POST', '/versions/dup-copy/reorder', { body: { items: [{ slug: 'install', parentSlug: 'start', sortOrder: 0 }] } }),
        await s.request('PATCH', '/versions/dup-copy', { body: { label: 'Copy label', languages: ['en', 'de', 'fr'] } }),
      ];
      for (const r of edits) assert.equal(r.status, 200, r.text);
      const copy = (await s.request('GET', '/versions/dup-copy/nodes?include=bodies')).body;
      assert.notDeepEqual(copy.nodes, sourceNodes);
      const source = await s.request('GET', '/versions/dup-src/nodes?include=bodies');
      assert.deepEqual(source.body.nodes, sourceNodes);
      assert.equal(s.git('ls-tree', '-r', 'main', 'dup-src'), sourceFiles);
      const sourceVersion = ((await s.request('GET', '/versions')).body as VersionObj[]).find((v) => v.slug === 'dup-src')!;
      assert.equal(sourceVersion.label, 'Source');
      assert.deepEqual(sourceVersion.languages, ['en', 'de']);
      assert.equal(sourceVersion.sortOrder, 4);
    });

    test('later edits to the source do not change the copy', async () => {
      const copyBefore = (await s.request('GET', '/versions/dup-pub/nodes?include=bodies')).body;
      const res = await s.request('PUT', '/versions/dup-src/topics/faq/translations/en', { body: { title: 'FAQ changed' } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await s.request('GET', '/versions/dup-pub/nodes?include=bodies')).body, copyBefore);
    });

    test('without a key it is 401; with a help:read-only key 403', async () => {
      const reader = await s.createKey({ name: 'dup-reader', scopes: 'help:read' });
      await waitForKey(s, reader);
      const commits = s.commitCount();
      assertError(await s.request('POST', '/versions/dup-src/duplicate', { key: null, body: { slug: 'dup-anon' } }), 401, 'unauthorized');
      assertError(await s.request('POST', '/versions/dup-src/duplicate', { key: reader, body: { slug: 'dup-reader' } }), 403, 'insufficient_scope');
      assert.equal(s.commitCount(), commits);
    });
  });

  test('created, changed, duplicated and deleted versions read back the same after a restart', async () => {
    const versions = (await s.request('GET', '/versions')).body;
    const copy = (await s.request('GET', '/versions/dup-copy/nodes?include=bodies')).body;
    const source = (await s.request('GET', '/versions/dup-src/nodes?include=bodies')).body;
    s = await s.restart();
    assert.deepEqual((await s.request('GET', '/versions')).body, versions);
    assert.deepEqual((await s.request('GET', '/versions/dup-copy/nodes?include=bodies')).body, copy);
    assert.deepEqual((await s.request('GET', '/versions/dup-src/nodes?include=bodies')).body, source);
    assertError(await s.request('GET', '/versions/d-latest/nodes'), 404, 'not_found', { resource: 'version' });
  });
});

const VERSION_FIELDS = ['createdAt', 'hidden', 'isLatest', 'label', 'languages', 'slug', 'sortOrder', 'status', 'updatedAt', 'workingCopyOf'];

interface VersionObj {
  slug: string;
  label: string;
  status: string;
  languages: string[];
  sortOrder: number | null;
  isLatest: boolean;
  hidden: boolean;
  workingCopyOf: string | null;
  createdAt: string;
  updatedAt: string;
}

function assertNewestFirst(list: VersionObj[]): void {
  for (let i = 1; i < list.length; i++) {
    assert.ok(list[i - 1].createdAt >= list[i].createdAt, `${list[i - 1].slug} (${list[i - 1].createdAt}) before ${list[i].slug} (${list[i].createdAt})`);
  }
}

/** The version's stored version.json at the head of main. */
function versionFile(s: TestServer, slug: string): Record<string, unknown> {
  return JSON.parse(s.git('show', `main:${slug}/version.json`)) as Record<string, unknown>;
}
