import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AccountFile, verifyPassword } from '../src/auth/accounts.ts';
import { PROJECT } from './helpers/process.ts';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The admin CLI as an operator runs it, with `input` on standard input. */
function cli(dataDir: string, args: string[], input = ''): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, HELP_DATA_DIR: dataDir };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: PROJECT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill(), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

describe('accounts (CLI)', () => {
  let dir: string;
  const account = (name: string) => new AccountFile(dir).read().find((a) => a.name === name);
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'help-accounts-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('create without --password-stdin generates a strong password, shows it once and stores only its scrypt hash', async () => {
    const run = await cli(dir, ['accounts', 'create', '--name', 'ada', '--role', 'admin', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.equal(out.name, 'ada');
    assert.equal(out.role, 'admin');
    assert.ok(out.password.length >= 20, 'a generated password is long');
    const stored = account('ada')!;
    assert.equal(stored.password!.algorithm, 'scrypt');
    assert.ok(await verifyPassword(out.password, stored.password!), 'the shown password signs in');
    assert.equal(await verifyPassword(`${out.password}x`, stored.password!), false);
    const text = readFileSync(join(dir, 'accounts.json'), 'utf8');
    assert.ok(!text.includes(out.password), 'the password is not stored in clear');
    assert.equal(statSync(join(dir, 'accounts.json')).mode & 0o777, 0o600);
    // Shown once: listing never shows it, nor the hash.
    const list = await cli(dir, ['accounts', 'list', '--json']);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(Object.keys(JSON.parse(list.stdout)[0]).sort(), ['createdAt', 'disabled', 'name', 'role', 'signIn', 'updatedAt']);
    assert.ok(!list.stdout.includes(out.password) && !list.stdout.includes(stored.password!.hash));
  });

  test('create with --password-stdin takes the password from standard input (line end dropped)', async () => {
    const run = await cli(dir, ['accounts', 'create', '--name', 'bob', '--role', 'editor', '--password-stdin'], 'correct horse battery staple\n');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Created account "bob" \(editor\)/);
    assert.doesNotMatch(run.stdout, /correct horse/);
    assert.ok(await verifyPassword('correct horse battery staple', account('bob')!.password!));
  });

  test('refusals: a short password, a taken name (exit 1); a bad role, no name (exit 2); nothing is written', async () => {
    const before = readFileSync(join(dir, 'accounts.json'), 'utf8');
    const short = await cli(dir, ['accounts', 'create', '--name', 'cy', '--role', 'viewer', '--password-stdin'], 'short\n');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /at least 12 characters/);
    const taken = await cli(dir, ['accounts', 'create', '--name', 'ada', '--role', 'viewer']);
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, /"ada" exists/);
    const role = await cli(dir, ['accounts', 'create', '--name', 'cy', '--role', 'owner']);
    assert.equal(role.code, 2);
    assert.match(role.stderr, /--role must be one of admin, editor, viewer/);
    const noName = await cli(dir, ['accounts', 'create', '--role', 'viewer']);
    assert.equal(noName.code, 2);
    assert.match(noName.stderr, /--name/);
    assert.equal(readFileSync(join(dir, 'accounts.json'), 'utf8'), before);
  });

  test('set-role, set-password and disable change the account; an unknown name is exit 1', async () => {
    const role = await cli(dir, ['accounts', 'set-role', '--name', 'bob', '--role', 'viewer']);
    assert.equal(role.code, 0, role.stderr);
    assert.equal(account('bob')!.role, 'viewer');
    const pw = await cli(dir, ['accounts', 'set-password', '--name', 'bob', '--password-stdin'], 'a different long password\n');
    assert.equal(pw.code, 0, pw.stderr);
    assert.ok(await verifyPassword('a different long password', account('bob')!.password!));
    assert.equal(await verifyPassword('correct horse battery staple', account('bob')!.password!), false, 'the old password no longer works');
    const noStdin = await cli(dir, ['accounts', 'set-password', '--name', 'bob']);
    assert.equal(noStdin.code, 2);
    const off = await cli(dir, ['accounts', 'disable', '--name', 'bob', '--json']);
    assert.equal(off.code, 0, off.stderr);
    assert.equal(JSON.parse(off.stdout).disabled, true);
    assert.equal(account('bob')!.disabled, true);
    const unknown = await cli(dir, ['accounts', 'disable', '--name', 'nobody']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No account named "nobody"/);
  });

  test('accounts created at the same time are all kept (the file is locked while it changes)', async () => {
    const runs = await Promise.all(['c1', 'c2', 'c3', 'c4'].map((name) => cli(dir, ['accounts', 'create', '--name', name, '--role', 'viewer', '--json'])));
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(new AccountFile(dir).read().map((a) => a.name).filter((n) => n.startsWith('c')).sort(), ['c1', 'c2', 'c3', 'c4']);
  });

  test('list in a data directory that does not exist is an error, not an empty list', async () => {
    const run = await cli(join(dir, 'missing'), ['accounts', 'list']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /No data directory/);
  });

  test('a keys.json or accounts.json of another shape is refused, named, and never written over (it was read as empty, then replaced)', async () => {
    const damaged = mkdtempSync(join(tmpdir(), 'help-damaged-'));
    try {
      for (const [file, text, args] of [
        ['keys.json', '[{"name":"old"}]', ['keys', 'create', '--name', 'new']],
        ['keys.json', '{"keys":"x"}', ['keys', 'create', '--name', 'new']],
        ['keys.json', '{"keys":[null]}', ['keys', 'list']],
        ['keys.json', '{"keys":[{"name":"a","prefix":"hcs_","hash":"h","scopes":"help:read"}]}', ['keys', 'revoke', '--name', 'a']],
        ['keys.json', '{"keys":[', ['keys', 'list']],
        ['accounts.json', '{"accounts":{"ada":1}}', ['accounts', 'create', '--name', 'bob', '--role', 'editor']],
      ] as const) {
        writeFileSync(join(damaged, file), text);
        const run = await cli(damaged, [...args]);
        assert.equal(run.code, 1, `${text}: ${run.stdout}${run.stderr}`);
        assert.match(run.stderr, new RegExp(`${file.replace('.', '\\.')} (is not valid JSON|does not hold|holds at)[^\\n]*fix it, or restore it`), run.stderr);
        assert.doesNotMatch(run.stderr, /\bat .*\.ts:\d+/, 'no stack');
        assert.equal(readFileSync(join(damaged, file), 'utf8'), text, 'the file is as it was');
        rmSync(join(damaged, file));
      }
    } finally {
      rmSync(damaged, { recursive: true, force: true });
    }
  });
});
