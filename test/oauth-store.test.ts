import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pino } from 'pino';
import { OAuthStore } from '../src/oauth/store.ts';

describe('the authorization server\'s store (oauth/journal.jsonl)', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'help-oauth-store-'));
    dirs.push(dir);
    return dir;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const log = pino({ level: 'silent' });

  test('what is stored survives a reopen; what expired is neither answered nor kept', async () => {
    const dir = fresh();
    let now = 1_000_000;
    const store = new OAuthStore(dir, log, { now: () => now });
    await store.set('Client', 'c1', { client_id: 'c1' }, undefined);
    await store.set('AccessToken', 't1', { grantId: 'g1' }, 60);
    await store.set('RefreshToken', 'r1', { grantId: 'g1' }, 3600);
    now += 61_000;
    assert.equal(store.get('AccessToken', 't1'), undefined, 'expired: not answered');
    assert.deepEqual(store.get('RefreshToken', 'r1'), { grantId: 'g1' });
    await store.close();
    const reopened = new OAuthStore(dir, log, { now: () => now });
    assert.deepEqual(reopened.get('Client', 'c1'), { client_id: 'c1' });
    assert.deepEqual(reopened.get('RefreshToken', 'r1'), { grantId: 'g1' });
    await reopened.settled();
    const text = readFileSync(join(dir, 'oauth', 'journal.jsonl'), 'utf8');
    assert.ok(!text.includes('AccessToken:t1'), 'the expired token was dropped when the journal was rewritten at start');
    assert.ok(text.includes('RefreshToken:r1'));
    assert.equal(statSync(join(dir, 'oauth', 'journal.jsonl')).mode & 0o777, 0o600);
    await reopened.close();
  });

  test('revoking a grant removes every token of it, and the removal is durable', async () => {
    const dir = fresh();
    const store = new OAuthStore(dir, log);
    await store.set('AccessToken', 'a', { grantId: 'g' }, 60);
    await store.set('RefreshToken', 'b', { grantId: 'g' }, 60);
    await store.set('AccessToken', 'other', { grantId: 'h' }, 60);
    await store.revokeGrant('g');
    assert.equal(store.get('AccessToken', 'a'), undefined);
    assert.equal(store.get('RefreshToken', 'b'), undefined);
    await store.close();
    const reopened = new OAuthStore(dir, log);
    assert.equal(reopened.get('RefreshToken', 'b'), undefined);
    assert.deepEqual(reopened.get('AccessToken', 'other'), { grantId: 'h' });
    await reopened.close();
  });

  test('a consumed code stays consumed across a reopen; sessions are found by uid', async () => {
    const dir = fresh();
    const store = new OAuthStore(dir, log);
    await store.set('AuthorizationCode', 'code', { grantId: 'g' }, 60);
    await store.consume('AuthorizationCode', 'code');
    await store.set('Session', 's1', { uid: 'u1', accountId: 'ada' }, 600);
    await store.close();
    const reopened = new OAuthStore(dir, log);
    assert.ok(typeof reopened.get('AuthorizationCode', 'code')!.consumed === 'number');
    assert.equal(reopened.idByUid('u1'), 's1');
    await reopened.close();
  });

  test('a line torn by a crash mid-append is skipped; everything before it is kept', async () => {
    const dir = fresh();
    const store = new OAuthStore(dir, log);
    await store.set('Client', 'c1', { client_id: 'c1' }, undefined);
    await store.close();
    appendFileSync(join(dir, 'oauth', 'journal.jsonl'), '{"op":"set","key":"Client:c2","payl');
    const reopened = new OAuthStore(dir, log);
    assert.deepEqual(reopened.get('Client', 'c1'), { client_id: 'c1' });
    assert.equal(reopened.get('Client', 'c2'), undefined);
    await reopened.close();
  });

  test('many concurrent changes share fsyncs and all land', async () => {
    const dir = fresh();
    const store = new OAuthStore(dir, log);
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.set('AccessToken', `t${i}`, { grantId: `g${i % 7}` }, 600)));
    await store.close();
    const reopened = new OAuthStore(dir, log);
    for (let i = 0; i < 200; i++) assert.ok(reopened.get('AccessToken', `t${i}`), `t${i}`);
    await reopened.close();
  });
});

describe('the store\'s limits: client lifetimes, size, rewrites in the background', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'help-oauth-limits-'));
    dirs.push(dir);
    return dir;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const log = pino({ level: 'silent' });
  const DAY = 86_400_000;
  const journal = (dir: string) => readFileSync(join(dir, 'oauth', 'journal.jsonl'), 'utf8').split('\n').filter(Boolean);

  test('a client without a grant goes after a day; one in use stays its idle days past its last use, and no less than its tokens', async () => {
    const dir = fresh();
    let now = 1_000_000;
    const store = new OAuthStore(dir, log, { now: () => now, clientIdleDays: 90 });
    await store.set('Client', 'idle', { client_id: 'idle' }, undefined);
    await store.set('RegistrationAccessToken', 'rat', { clientId: 'idle' }, undefined);
    await store.set('Client', 'used', { client_id: 'used' }, undefined);
    await store.set('Grant', 'g', { clientId: 'used' }, 30 * 86_400);
    // Tokens issued all day long rewrite the client's line once, not once each.
    const before = journal(dir).length;
    for (let i = 0; i < 50; i++) {
      now += 60_000;
      await store.set('AccessToken', `a${i}`, { clientId: 'used', grantId: 'g' }, 3600);
    }
    assert.equal(journal(dir).length, before + 50, 'no line for the client while it lives long enough');
    now += DAY;
    store.sweep();
    assert.equal(store.get('Client', 'idle'), undefined, 'never granted anything: gone after a day');
    assert.equal(store.get('RegistrationAccessToken', 'rat'), undefined, 'what belonged to it without an expiry of its own went with it');
    assert.ok(store.get('Client', 'used'));
    now += 85 * DAY;
    assert.ok(store.get('Client', 'used'), 'used 86 days ago: still there');
    // A refresh token that outlives the idle time keeps its client.
    await store.set('RefreshToken', 'long', { clientId: 'used', grantId: 'g' }, 200 * 86_400);
    now += 150 * DAY;
    assert.ok(store.get('Client', 'used'), 'its refresh token is still valid');
    now += 51 * DAY;
    assert.equal(store.get('Client', 'used'), undefined, 'unused past its idle days and its last token: gone');
    await store.close();
  });

  test('with idle expiry off, a client that obtained a grant stays; one that never did still goes after a day', async () => {
    const dir = fresh();
    let now = 1_000_000;
    const store = new OAuthStore(dir, log, { now: () => now, clientIdleDays: 0 });
    await store.set('Client', 'kept', { client_id: 'kept' }, undefined);
    await store.set('Client', 'unused', { client_id: 'unused' }, undefined);
    await store.set('Grant', 'g', { clientId: 'kept' }, 3600);
    now += 1000 * DAY;
    assert.ok(store.get('Client', 'kept'));
    assert.equal(store.get('Client', 'unused'), undefined);
    await store.close();
  });

  test('clients recorded without an expiry get one at start: a day, or the idle days when granted something', async () => {
    const dir = fresh();
    mkdirSync(join(dir, 'oauth'));
    const now = 5_000_000;
    const lines = [
      { op: 'set', key: 'Client:old', payload: { client_id: 'old' }, expiresAt: null },
      { op: 'set', key: 'Client:granted', payload: { client_id: 'granted' }, expiresAt: null },
      { op: 'set', key: 'Grant:g', payload: { clientId: 'granted' }, expiresAt: now + DAY },
    ];
    writeFileSync(join(dir, 'oauth', 'journal.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const store = new OAuthStore(dir, log, { now: () => now, clientIdleDays: 10 });
    await store.settled();
    const expiry = (key: string) => journal(dir).map((l) => JSON.parse(l) as { key: string; expiresAt: number | null }).filter((l) => l.key === key).at(-1)!.expiresAt;
    assert.equal(expiry('Client:old'), now + DAY, 'recorded in the journal, so that a restart does not put it off');
    assert.equal(expiry('Client:granted'), now + 10 * DAY);
    await store.close();
  });

  test('the size counted is what a rewritten journal holds; at the limit the store says how long to wait', async () => {
    const dir = fresh();
    let now = 1_000_000;
    const store = new OAuthStore(dir, log, { now: () => now, maxBytes: 20_000 });
    await store.set('Session', 'short', { pad: 'x'.repeat(5000) }, 30);
    for (let i = 0; i < 4; i++) await store.set('Session', `s${i}`, { pad: 'é'.repeat(2000) }, 3600);
    assert.ok(store.fullFor() >= 1 && store.fullFor() <= 30, `full until the first entry expires: ${store.fullFor()}`);
    await store.compact();
    assert.equal(statSync(join(dir, 'oauth', 'journal.jsonl')).size, store.size);
    now += 31_000;
    assert.equal(store.fullFor(), 0, 'room again once an entry expired');
    await store.close();
  });

  test('a rewrite runs in slices: the event loop keeps turning, and changes made meanwhile are kept', async () => {
    const dir = fresh();
    const store = new OAuthStore(dir, log);
    const pad = 'p'.repeat(2000);
    await Promise.all(Array.from({ length: 15_000 }, (_, i) => store.set('Session', `s${i}`, { pad, i }, 3600)));
    let longest = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const t = performance.now();
      longest = Math.max(longest, t - last);
      last = t;
    }, 1);
    let rewriting = true;
    const rewrite = Promise.resolve(store.compact()).then(() => (rewriting = false));
    // Changes while the rewrite runs: new entries, replaced ones, removed ones.
    let during = 0;
    let count = 0;
    for (let i = 0; rewriting || i < 20; i++, count++) {
      await Promise.all([store.set('AccessToken', `new${i}`, { i }, 3600), store.set('Session', `s${i}`, { changed: i }, 3600), store.delete('Session', `s${14_999 - i}`)]);
      if (rewriting) during++;
    }
    await rewrite;
    last = performance.now();
    await new Promise((r) => setTimeout(r, 20));
    clearInterval(ticker);
    assert.ok(during > 0, 'changes were made while the journal was rewritten');
    assert.ok(longest < 250, `the event loop was held for ${Math.round(longest)} ms`);
    await store.close();
    const reopened = new OAuthStore(dir, log);
    for (let i = 0; i < count; i++) {
      assert.deepEqual(reopened.get('AccessToken', `new${i}`), { i });
      assert.deepEqual(reopened.get('Session', `s${i}`), { changed: i });
      assert.equal(reopened.get('Session', `s${14_999 - i}`), undefined);
    }
    assert.deepEqual(reopened.get('Session', `s${count}`), { pad, i: count }, 'untouched entries are all there');
    await reopened.close();
  });
});
