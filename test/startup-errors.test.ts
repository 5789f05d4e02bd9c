import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { describeStartupError } from '../src/startup-errors.ts';
import { PROJECT, runProcess } from './helpers/process.ts';

/** Starts the real entry point and waits for it to give up. */
const start = (env: Record<string, string>) =>
  runProcess(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: PROJECT, env: { ...process.env, HOST: '127.0.0.1', HELP_SAMPLE_CONTENT: 'off', LOG_LEVEL: 'info', ...env }, timeout: 20_000 });

/** One line on stderr, no stack trace, exit 1. */
function assertOneLine(run: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.equal(run.code, 1, run.stderr);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line, got:\n${run.stderr}`);
  assert.match(lines[0], pattern);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
}

describe('Start-up failures are one clear line', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'help-start-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test('a port in use names the port and what to do', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const run = await start({ PORT: String(port), HELP_DATA_DIR: join(scratch, 'port') });
      assertOneLine(run, new RegExp(`^Cannot start: Port ${port} on 127\\.0\\.0\\.1 is already in use .*set PORT`));
    } finally {
      blocker.close();
    }
  });

  test('a data directory that cannot be created names the folder and the reason', async () => {
    writeFileSync(join(scratch, 'a-file'), 'not a folder');
    const dataDir = join(scratch, 'a-file', 'data');
    const run = await start({ PORT: '0', HELP_DATA_DIR: dataDir });
    assertOneLine(run, /^Cannot start: The data directory .*a-file\/data cannot be used: a part of the path is a file, not a folder .*HELP_DATA_DIR/);
  });

  test('a HOST that does not resolve and a data directory path too long name the setting', async () => {
    // The look-up's failure as Node reports it (a real one could ask a name server elsewhere).
    const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND no-such-host.invalid'), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname: 'no-such-host.invalid' });
    assert.equal(
      describeStartupError(lookup, { port: 8080, host: 'no-such-host.invalid', dataDir: '/srv/help/data' }),
      'HOST no-such-host.invalid is not a name this machine can look up (ENOTFOUND); set HOST to one of its addresses or names, 127.0.0.1 or 0.0.0.0',
    );
    const long = await start({ PORT: '0', HELP_DATA_DIR: join(scratch, 'x'.repeat(300)) });
    assertOneLine(long, /^Cannot start: The data directory .*x{300} cannot be used: the path or a name in it is too long .*HELP_DATA_DIR/);
  });

  test('a data directory behind a link to nowhere (a volume not mounted) names the folder and the likely cause', async () => {
    symlinkSync(join(scratch, 'not-mounted'), join(scratch, 'volume'));
    const run = await start({ PORT: '0', HELP_DATA_DIR: join(scratch, 'volume', 'data') });
    assertOneLine(run, /^Cannot start: The data directory .*volume\/data cannot be used: a folder on the path does not exist and cannot be made \(a volume not mounted, or a link to nowhere\)/);
  });

  test('a data directory below /proc, where no folder can be made, is refused in one line instead of hanging the start', async () => {
    const run = await start({ PORT: '0', HELP_DATA_DIR: '/proc/help-content-data' });
    assertOneLine(run, /^Cannot start: The data directory \/proc\/help-content-data cannot be used: a folder on the path does not exist and cannot be made/);
  });

  test('a data directory this user may not write is explained, not thrown', () => {
    const err = Object.assign(new Error("EACCES: permission denied, mkdir '/srv/help/data'"), { code: 'EACCES', syscall: 'mkdir', path: '/srv/help/data' });
    assert.match(describeStartupError(err, { port: 8080, host: '127.0.0.1', dataDir: '/srv/help/data' }) ?? '', /^The data directory \/srv\/help\/data cannot be used: permission denied .*; give this user the folder \(chown -R\), or set HELP_DATA_DIR/);
    const low = Object.assign(new Error('listen EACCES'), { code: 'EACCES', syscall: 'listen' });
    assert.match(describeStartupError(low, { port: 80, host: '0.0.0.0', dataDir: '/srv/help/data' }) ?? '', /port 80 \(ports below 1024 need privileges\)/);
    assert.equal(describeStartupError(new Error('something else'), { port: 1, host: 'h', dataDir: '/d' }), null);
  });
});
