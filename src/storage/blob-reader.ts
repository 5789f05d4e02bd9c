import { spawn } from 'node:child_process';

/** The system git cannot serve the read (not installed, refused the repository, or an object is missing). */
export class GitUnavailableError extends Error {}

/**
 * Reads blobs with one `git cat-file --batch` process: git inflates in native code, several times
 * faster than isomorphic-git's JavaScript inflate (30,000 files / 300 MB: about 1.5 s against over
 * 10 s). `onBlob` gets each blob's bytes in the order of `oids`. Rejects with GitUnavailableError when
 * git cannot be run or does not give every object, so the caller can fall back to isomorphic-git.
 */
export function catFileBlobs(gitdir: string, oids: readonly string[], onBlob: (index: number, bytes: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (oids.length === 0) {
      resolve();
      return;
    }
    // A clean environment: a GIT_DIR or GIT_OBJECT_DIRECTORY set for the service's own process must not redirect the read.
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
    const proc = spawn('git', ['--git-dir', gitdir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'pipe'], env });
    let failed: Error | null = null;
    const fail = (err: Error) => {
      if (failed) return;
      failed = err;
      proc.kill();
    };
    let stderr = '';
    proc.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    proc.stdin.on('error', () => undefined); // git exiting early shows as a failed exit below

    let next = 0;
    /** Bytes of a header line or of a body that spans chunks. */
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    /** The size of the body being read, or -1 while a header line is expected. */
    let want = -1;
    proc.stdout.on('data', (chunk: Buffer) => {
      let at = 0;
      while (at < chunk.length && !failed) {
        if (want < 0) {
          const nl = chunk.indexOf(10, at);
          if (nl < 0) {
            pending.push(chunk.subarray(at));
            pendingBytes += chunk.length - at;
            return;
          }
          const header = (pendingBytes > 0 ? Buffer.concat([...pending, chunk.subarray(at, nl)]) : chunk.subarray(at, nl)).toString('latin1');
          pending = [];
          pendingBytes = 0;
          at = nl + 1;
          const [oid, type, size] = header.split(' ');
          if (next >= oids.length || oid !== oids[next] || type !== 'blob' || !/^\d+$/.test(size ?? '')) {
            fail(new GitUnavailableError(`git cat-file answered "${header.slice(0, 100)}" for ${oids[next] ?? 'nothing'}`));
            return;
          }
          want = Number(size);
        }
        // The body, then the LF git writes after it.
        const take = Math.min(want + 1 - pendingBytes, chunk.length - at);
        pending.push(chunk.subarray(at, at + take));
        pendingBytes += take;
        at += take;
        if (pendingBytes === want + 1) {
          const whole = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
          pending = [];
          pendingBytes = 0;
          want = -1;
          try {
            onBlob(next++, whole.subarray(0, whole.length - 1));
          } catch (err) {
            fail(err as Error);
            return;
          }
        }
      }
    });
    proc.once('error', (err) => fail(new GitUnavailableError(`git cannot be run: ${err.message}`)));
    proc.once('close', (code) => {
      if (failed) reject(failed);
      else if (code !== 0 || next !== oids.length) reject(new GitUnavailableError(`git cat-file --batch stopped after ${next} of ${oids.length} objects (exit ${code}): ${stderr.trim()}`));
      else resolve();
    });
    // Written in one go: git answers as it reads, and the answers are consumed as they come.
    proc.stdin.end(`${oids.join('\n')}\n`);
  });
}
