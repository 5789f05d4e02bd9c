/**
 * Settings read from the environment, for config.ts and the parts that keep their settings beside
 * them (webhooks, feedback, replicas): one reading of a number and of on/off everywhere, and an error
 * that names the setting. `fail` makes the error that stops the start.
 */

export type Fail = (message: string) => Error;

/** A whole number within [min, max], or `fallback` when unset. */
export function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, fail: Fail): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  // Digits only: Number() reads " " as 0 and "0x1F" as 31, and a setting would change without a word.
  const value = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < min || value > max) throw fail(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

/** on/true/1 or off/false/0 (any case), or `fallback` when unset. */
export function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean, fail: Fail): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '') return fallback;
  if (['on', 'true', '1'].includes(raw)) return true;
  if (['off', 'false', '0'].includes(raw)) return false;
  throw fail(`${name} must be on or off, not ${JSON.stringify(env[name])}`);
}
