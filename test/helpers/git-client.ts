import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A home of its own for the git client: no configuration of this machine's user or system reaches it. */
export function gitClient() {
  const home = mkdtempSync(join(tmpdir(), 'help-git-client-'));
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) base[k] = v;
  Object.assign(base, { HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' });
  return {
    home,
    /** Runs git (asynchronously: the server answers in this process); `config` goes in through the environment, never the command line. */
    run(args: string[], opts: { cwd?: string; config?: Record<string, string>; env?: Record<string, string> } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
      const env: NodeJS.ProcessEnv = { ...base, ...opts.env };
      const config = Object.entries(opts.config ?? {});
      env.GIT_CONFIG_COUNT = String(config.length);
      config.forEach(([key, value], i) => {
        env[`GIT_CONFIG_KEY_${i}`] = key;
        env[`GIT_CONFIG_VALUE_${i}`] = value;
      });
      return new Promise((resolve) => {
        execFile('git', args, { cwd: opts.cwd ?? home, env, timeout: 60_000 }, (err, stdout, stderr) => {
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
        });
      });
    },
    /** A credential helper's store holding `key` for the server, as `git credential approve` would leave it (mode 0600). */
    storeCredential(url: string, key: string): Record<string, string> {
      const file = join(home, `credentials-${Math.random().toString(36).slice(2)}`);
      const u = new URL(url);
      writeFileSync(file, `${u.protocol}//git:${encodeURIComponent(key)}@${u.host}\n`, { mode: 0o600 });
      return { 'credential.helper': `store --file=${file}` };
    },
    close: () => rmSync(home, { recursive: true, force: true }),
  };
}

export type GitClient = ReturnType<typeof gitClient>;
