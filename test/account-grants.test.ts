import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { PROJECT, runProcess } from './helpers/process.ts';
import { addAccount, authorizationRequest, originOf, registerClient, signIn } from './helpers/oauth.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

/** The admin CLI as an operator runs it, on the server's data directory. */
function cli(s: TestServer, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, HELP_DATA_DIR: s.dataDir };
  delete env.NODE_TEST_CONTEXT;
  return runProcess(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: PROJECT, env, timeout: 60_000 });
}

async function refresh(s: TestServer, config: oidc.Configuration, refreshToken: string): Promise<string> {
  try {
    await oidc.refreshTokenGrant(config, refreshToken, { resource: `${originOf(s)}/help/v1` });
    return 'ok';
  } catch (err) {
    return String((err as { error?: string }).error ?? (err as Error).message);
  }
}

/** The clients whose grants of `account` the journal holds live. */
function liveGrantClients(s: TestServer, account: string): string[] {
  const live = new Map<string, { accountId?: string; clientId?: string }>();
  for (const line of readFileSync(join(s.dataDir, 'oauth', 'journal.jsonl'), 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { op: string; key: string; payload?: { accountId?: string; clientId?: string } };
    if (!entry.key.startsWith('Grant:')) continue;
    if (entry.op === 'del') live.delete(entry.key);
    else live.set(entry.key, entry.payload ?? {});
  }
  return [...live.values()].filter((p) => p.accountId === account).map((p) => p.clientId!);
}

describe('accounts grants and accounts revoke (CLI) on a running server', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('list the clients an account granted access to; revoke one: its tokens stop working at once, consent is asked again; the other client goes on, until every grant is revoked', async () => {
    const account = await addAccount(s, 'gina', 'editor');
    const tool = await registerClient(s, { client_name: 'Docs tool' });
    const other = await registerClient(s, { client_name: 'Other tool' });
    const first = await signIn(s, tool, account);
    const second = await signIn(s, other, account);
    const toolId = tool.clientMetadata().client_id;
    const otherId = other.clientMetadata().client_id;

    const listed = await cli(s, 'accounts', 'grants', '--name', 'gina', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const grants = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(grants.map((g) => [g.clientId, g.clientName]).sort(), [[toolId, 'Docs tool'], [otherId, 'Other tool']].sort());
    for (const g of grants) {
      assert.deepEqual([...(g.scopes as string[])].sort(), ['help:read', 'help:write'], JSON.stringify(g));
      assert.ok(Math.abs(Date.parse(g.grantedAt as string) - Date.now()) < 60_000, JSON.stringify(g));
      assert.ok(typeof g.lastUsedAt === 'string' && Date.parse(g.lastUsedAt) >= Date.parse(g.grantedAt as string), 'a token was issued under it');
    }
    const text = await cli(s, 'accounts', 'grants', '--name', 'gina');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^${toolId}\\tDocs tool\\thelp:read help:write\\tgranted \\S+\\tlast used \\S+$`, 'm'));

    const revoked = await cli(s, 'accounts', 'revoke', '--name', 'gina', `--client=${toolId}`);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /Revoked what account "gina" granted to client "Docs tool"/);
    const since = Date.now();
    // In force on the next request: the access token is refused, the refresh token too.
    const who = await s.request('GET', '/whoami', { key: first.tokens.access_token });
    assert.equal(who.status, 401, who.text);
    assert.match(who.body.error.message, /revoked/);
    assert.equal(await refresh(s, tool, first.tokens.refresh_token!), 'invalid_grant');
    assert.ok(Date.now() - since < 1000, `refused within a second (${Date.now() - since} ms)`);
    // The running server removed the grant from its store.
    for (let i = 0; liveGrantClients(s, 'gina').includes(toolId) && i < 20; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(liveGrantClients(s, 'gina'), [otherId]);
    // The other client is untouched.
    assert.equal((await s.request('GET', '/whoami', { key: second.tokens.access_token })).status, 200);
    const after = JSON.parse((await cli(s, 'accounts', 'grants', '--name', 'gina', '--json')).stdout) as Array<{ clientId: string }>;
    assert.deepEqual(after.map((g) => g.clientId), [otherId]);
    // The browser is still signed in; the client's grant is gone, so consent is asked again.
    const { url } = await authorizationRequest(s, tool);
    assert.match((await first.browser.open(url.href)).html, /name="decision"/, 'the consent page, not a code straight away');

    const all = await cli(s, 'accounts', 'revoke', '--name', 'gina', '--json');
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(JSON.parse(all.stdout).clients, [{ clientId: otherId, clientName: 'Other tool' }]);
    assert.equal((await s.request('GET', '/whoami', { key: second.tokens.access_token })).status, 401);
    assert.equal(await refresh(s, other, second.tokens.refresh_token!), 'invalid_grant');
    assert.equal((await cli(s, 'accounts', 'grants', '--name', 'gina')).stdout, 'Account "gina" has granted no client access.\n');

    // What is granted after the revocation works (a second later: the revocation ends what was issued in its own second).
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 10));
    const fresh = await signIn(s, tool, account);
    assert.equal((await s.request('GET', '/whoami', { key: fresh.tokens.access_token })).status, 200);
    assert.equal(await refresh(s, tool, fresh.tokens.refresh_token!), 'ok');
  });

  test('a revocation made while the server was down is in force when it starts; a torn last journal line does not stop the listing', async () => {
    const account = await addAccount(s, 'hal', 'editor');
    const tool = await registerClient(s);
    const { tokens } = await signIn(s, tool, account);
    const port = Number(new URL(s.url).port);
    await s.service.close();
    appendFileSync(join(s.dataDir, 'oauth', 'journal.jsonl'), '{"op":"set","key":"Grant:torn","payl');
    const listed = await cli(s, 'accounts', 'grants', '--name', 'hal', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as Array<{ clientId: string }>).map((g) => g.clientId), [tool.clientMetadata().client_id]);
    const revoked = await cli(s, 'accounts', 'revoke', '--name', 'hal', `--client=${tool.clientMetadata().client_id}`);
    assert.equal(revoked.code, 0, revoked.stderr);
    s = await startTestServer({ dataDir: s.dataDir, port });
    assert.equal((await s.request('GET', '/whoami', { key: tokens.access_token })).status, 401);
    assert.equal(await refresh(s, tool, tokens.refresh_token!), 'invalid_grant');
  });

  test('the commands check their options and names: a usage mistake is exit 2, an unknown account or client exit 1', async () => {
    const noName = await cli(s, 'accounts', 'grants');
    assert.equal(noName.code, 2, noName.stderr);
    assert.match(noName.stderr, /accounts grants needs --name NAME/);
    const wrong = await cli(s, 'accounts', 'grants', '--name', 'gina', '--client', 'x');
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /accounts grants does not take --client/);
    const nobody = await cli(s, 'accounts', 'revoke', '--name', 'nobody');
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /No account named "nobody"/);
    await addAccount(s, 'ivy', 'editor');
    const unknown = await cli(s, 'accounts', 'revoke', '--name', 'ivy', '--client', 'no-such-client');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /has granted no access to a client "no-such-client" \(see accounts grants --name ivy\)/);
    // A client id may begin with a dash: written --client ID it reads as an option, and the message says to write --client=ID.
    const dashed = await cli(s, 'accounts', 'revoke', '--name', 'ivy', '--client', '-no-such-client');
    assert.equal(dashed.code, 2);
    assert.match(dashed.stderr, /--client=-XYZ/);
    const dashedWithEquals = await cli(s, 'accounts', 'revoke', '--name', 'ivy', '--client=-no-such-client');
    assert.equal(dashedWithEquals.code, 1);
    assert.match(dashedWithEquals.stderr, /has granted no access to a client "-no-such-client"/);
    const help = await cli(s, '--help');
    assert.match(help.stdout, /accounts grants --name NAME \[--json\]/);
    assert.match(help.stdout, /accounts revoke --name NAME \[--client=CLIENT_ID\]/);
  });
});
