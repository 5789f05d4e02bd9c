import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { acquireLock, DataDirLockedError } from '../src/storage/lock-file.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'help-lock-'));

test('a lock held by this process refuses a second server of the same data directory, and is released', () => {
  const d = dir();
  try {
    const release = acquireLock(d);
    assert.throws(() => acquireLock(d), DataDirLockedError);
    release();
    acquireLock(d)();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test("a lock naming this process's own pid that it did not take is stale: a container restarted after a hard kill gets the same pid", () => {
  const d = dir();
  try {
    writeFileSync(join(d, 'server.lock'), `${process.pid}\n`);
    const release = acquireLock(d);
    assert.match(readFileSync(join(d, 'server.lock'), 'utf8'), new RegExp(`^${process.pid}\\b`));
    release();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a lock naming a running process that started at another time is stale (its pid was given to another program); one that matches is not', async () => {
  const d = dir();
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => other.once('spawn', resolve));
    const started = readFileSync(`/proc/${other.pid}/stat`, 'utf8');
    const startTime = started.slice(started.lastIndexOf(')') + 2).split(' ')[19];
    writeFileSync(join(d, 'server.lock'), `${other.pid} ${startTime}\n`);
    assert.throws(() => acquireLock(d), /in use by another server \(pid \d+\)/);
    writeFileSync(join(d, 'server.lock'), `${other.pid} ${Number(startTime) + 1}\n`);
    acquireLock(d)();
    // An old lock with the pid alone: a running process of that pid is taken as the owner.
    writeFileSync(join(d, 'server.lock'), `${other.pid}\n`);
    assert.throws(() => acquireLock(d), DataDirLockedError);
  } finally {
    other.kill();
    rmSync(d, { recursive: true, force: true });
  }
});

test('a lock naming a process that has exited and waits to be collected (a zombie, after kill -9) is stale', async () => {
  const d = dir();
  // The shell starts a short sleep, prints its pid and becomes a long sleep, which never collects it.
  const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 10'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d) => resolve(String(d).trim()))));
    const stat = () => readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTime = stat().slice(stat().lastIndexOf(')') + 2).split(' ')[19];
    for (let i = 0; i < 50 && stat().slice(stat().lastIndexOf(')') + 2)[0] !== 'Z'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(stat().slice(stat().lastIndexOf(')') + 2)[0], 'Z', 'the short sleep is a zombie');
    writeFileSync(join(d, 'server.lock'), `${pid} ${startTime}\n`);
    acquireLock(d)();
  } finally {
    parent.kill();
    rmSync(d, { recursive: true, force: true });
  }
});

test('a folder where the lock file goes is named in the refusal', () => {
  const d = dir();
  try {
    mkdirSync(join(d, 'server.lock'));
    assert.throws(() => acquireLock(d), /server\.lock is a folder/);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});
