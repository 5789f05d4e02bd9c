import { spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * Sends `GET url` every 5 ms from a process of its own until stopped, and reports the longest wait.
 * A probe in the suite's own process would count the suite's work as the server's: serializing a
 * 3 MB request body or collecting its garbage delays the probe's timers too. The probe is ready once
 * WARM_UP requests are answered, which are not counted: a fresh process's first fetch() takes 30-60 ms
 * of its own (loading the HTTP client, opening the connection), and it fell in the window measured.
 */
const WARM_UP = 20;
const SCRIPT = `
let worst = 0, probes = 0, stopping = false;
process.stdin.on('data', () => { stopping = true; });
process.stdin.resume();
for (let i = 0; i < ${WARM_UP}; i++) {
  await fetch(process.argv[1]).then((r) => r.arrayBuffer());
  await new Promise((r) => setTimeout(r, 5));
}
process.stdout.write('ready\\n');
while (!stopping) {
  const t0 = performance.now();
  await fetch(process.argv[1]).then((r) => r.arrayBuffer());
  worst = Math.max(worst, performance.now() - t0);
  probes++;
  await new Promise((r) => setTimeout(r, 5));
}
process.stdout.write(JSON.stringify({ worst, probes }) + '\\n');
process.exit(0);
`;

export interface Probe {
  stop(): Promise<{ worst: number; probes: number }>;
}

export async function startProbe(url: string): Promise<Probe> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, url], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  const deadline = Date.now() + 10_000;
  while (!out.includes('ready\n')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('the /healthz probe did not start');
    await new Promise((r) => setTimeout(r, 5));
  }
  return {
    async stop() {
      child.stdin.end('stop\n');
      const timer = setTimeout(() => child.kill(), 10_000);
      await once(child, 'exit');
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) throw new Error('the /healthz probe gave no result');
      return JSON.parse(line) as { worst: number; probes: number };
    },
  };
}
