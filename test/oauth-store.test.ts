import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
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
    const store = new OAuthStore(dir, log, () => now);
    await store.set('Client', 'c1', { client_id: 'c1' }, undefined);
    await store.set('AccessToken', 't1', { grantId: 'g1' }, 60);
    await store.set('RefreshToken', 'r1', { grantId: 'g1' }, 3600);
    now += 61_000;
    assert.equal(store.get('AccessToken', 't1'), undefined, 'expired: not answered');
    assert.deepEqual(store.get('RefreshToken', 'r1'), { grantId: 'g1' });
    await store.close();
    const reopened = new OAuthStore(dir, log, () => now);
    assert.deepEqual(reopened.get('Client', 'c1'), { client_id: 'c1' });
    assert.deepEqual(reopened.get('RefreshToken', 'r1'), { grantId: 'g1' });
    const text = readFileSync(join(dir, 'oauth', 'journal.jsonl'), 'utf8');
    assert.ok(!text.includes('"t1"'), 'the expired token was dropped when the journal was rewritten at start');
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
