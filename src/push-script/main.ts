import { existsSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isHeaderToken, isVersionSlug } from '../domain/names.ts';
import { changedVersions, GitError, rootPath, uncommitted, type Changes } from './changed.ts';
import { Output } from './output.ts';
import { pushVersion, type Mode } from './push.ts';
import { call, refusal, Unreachable, type Service } from './service.ts';
import { stripStamps } from './strip-stamps.ts';

export const USAGE = `Usage:
  help-push push --dir DIR --version VERSION [--dry-run | --offline]
  help-push push-changed --since COMMIT [--root docs] [--dry-run | --offline] [--delete-removed]
  help-push strip-stamps --dir DIR [--dry-run]

push          Publishes one version folder through import-files (--dry-run: asks the service what a
              real run would do, and writes nothing).
push-changed  The same for every version folder under --root (default docs) that changed between
              COMMIT and HEAD (git diff), each one even when another fails. With COMMIT empty, all
              zeros (the first push of a branch) or a commit id the repository does not have (a force
              push), every version folder under --root. A deleted folder's version stays on the
              service unless --delete-removed is given (a real run then deletes it; a dry run
              asks the service whether it has the version, and says what a real run would delete).
strip-stamps  Removes the stamps older versions of the service wrote into content files (updatedAt in
              front matter and in version.json's nav entries, createdAt and updatedAt of version.json)
              from every version folder at or below DIR, changing no other line. The service reads
              files with or without them. --dry-run lists the files that carry stamps, changing none.
--offline     Checks the files here, with the service's own validation code: no service, no key.

Environment (not needed with --offline, nor by strip-stamps): HELP_URL, the API base (e.g. https://help.example.com/help/v1);
HELP_KEY, an API key (real runs on locked published versions, and deletions, need a publisher key).
Exit status: 0 done, 1 a version was refused or failed (or git could not say what changed; strip-stamps: a
file could not be read, or DIR holds no version folder), 2 usage.`;

const OPTIONS = {
  dir: { type: 'string' },
  version: { type: 'string' },
  root: { type: 'string' },
  since: { type: 'string' },
  'dry-run': { type: 'boolean' },
  offline: { type: 'boolean' },
  'delete-removed': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const COMMANDS = ['push', 'push-changed', 'strip-stamps'] as const;
type Command = (typeof COMMANDS)[number];

/** The options each command takes (--help aside). */
const ALLOWED: Record<Command, readonly string[]> = {
  push: ['dir', 'version', 'dry-run', 'offline'],
  'push-changed': ['root', 'since', 'dry-run', 'offline', 'delete-removed'],
  'strip-stamps': ['dir', 'dry-run'],
};

/** Runs the command line; answers the exit status. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const usage = (problem: string) => {
    process.stderr.write(`${problem}\n${USAGE}\n`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [given, ...extra] = positionals;
  if (!COMMANDS.includes(given as Command)) return usage(given === undefined ? 'Missing the command "push", "push-changed" or "strip-stamps"' : `Unknown command "${given}"`);
  const command = given as Command;
  if (extra.length > 0) return usage(`Unexpected argument "${extra[0]}"`);
  for (const option of Object.keys(values)) {
    if (option === 'help' || ALLOWED[command].includes(option)) continue;
    const owners = COMMANDS.filter((c) => ALLOWED[c].includes(option));
    return usage(`--${option} is an option of ${owners[0]}, not of ${command}`);
  }
  if (command === 'strip-stamps') {
    if (!values.dir) return usage('Missing --dir');
    if (!statSync(values.dir, { throwIfNoEntry: false })?.isDirectory()) {
      process.stderr.write(`${values.dir} is not a folder\n`);
      return 2;
    }
    return stripCommand(values.dir, values['dry-run'] === true, new Output(env));
  }
  const mode: Mode = values.offline ? 'offline' : values['dry-run'] ? 'dry-run' : 'real';
  const missing = (command === 'push' ? [!values.dir && '--dir', !values.version && '--version'] : [values.since === undefined && '--since']).concat(
    mode === 'offline' ? [] : [!env.HELP_URL && 'HELP_URL', !env.HELP_KEY && 'HELP_KEY'],
  );
  if (missing.some(Boolean)) return usage(`Missing ${missing.filter(Boolean).join(', ')}`);
  // Never quoted: a key with a line break in it would otherwise reach the log of whatever runs this.
  if (mode !== 'offline' && !isHeaderToken(env.HELP_KEY!)) return usage('HELP_KEY holds white space or other characters a key does not have (a line break copied with it?)');
  const service: Service | null = mode === 'offline' ? null : { url: env.HELP_URL!, key: env.HELP_KEY! };
  const out = new Output(env);

  if (command === 'push') {
    const slugProblem = versionSlugProblem(values.version!);
    if (slugProblem) return usage(`--version ${JSON.stringify(values.version)} ${slugProblem}`);
    if (!statSync(values.dir!, { throwIfNoEntry: false })?.isDirectory()) {
      process.stderr.write(`${values.dir} is not a folder\n`);
      return 2;
    }
    return (await pushVersion(values.dir!, values.version!, mode, service, out)) ? 0 : 1;
  }
  const root = rootPath(values.root ?? 'docs');
  if (root === null) return usage(`--root ${values.root} must be a folder below the current folder`);
  // A typo would otherwise find no version changed and pass, checking nothing.
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) return usage(`--root ${values.root ?? 'docs'} is not a folder here (run from the repository's top folder, or name the folder that holds the versions)`);
  return pushChanged(root, values.since!, mode, values['delete-removed'] === true, service, out);
}

/** push-changed: every changed version folder, each one whatever happened to the others. */
async function pushChanged(root: string, since: string, mode: Mode, deleteRemoved: boolean, service: Service | null, out: Output): Promise<number> {
  let changes: Changes;
  try {
    changes = changedVersions(root, since);
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
    out.failure(`Cannot tell which versions changed: ${err.message}`);
    return 1;
  }
  const { versions } = changes;
  let dirty: string[] = [];
  try {
    dirty = uncommitted(root);
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
  }
  if (dirty.length > 0) {
    const shown = dirty.slice(0, 5).join(', ') + (dirty.length > 5 ? ` and ${dirty.length - 5} more` : '');
    out.warning(`${dirty.length} change(s) under ${root} are not committed (${shown}): push-changed picks the versions changed in commits since ${since.slice(0, 12) || 'the base'}, and sends their files as they are on disk. Commit first, or check one folder with push --dir … --offline`);
  }
  if (changes.all) {
    out.progress(`Checking every version under ${root}: ${changes.all.reason}.`);
    if (versions.length === 0) {
      out.failure(`No version folders under ${root} (${root}/{version}/version.json): nothing to check or publish.`);
      return 1;
    }
  } else if (versions.length === 0) {
    for (const path of changes.outside) out.progress(`${path}: not inside a version folder (${root}/{version}/); not checked`);
    out.result(`No version changed under ${root} since ${since.slice(0, 12)}: nothing to do.`);
    return 0;
  } else {
    out.progress(`Changed under ${root} since ${since.slice(0, 12)}: ${versions.join(', ')}`);
  }
  for (const path of changes.outside) out.progress(`${path}: not inside a version folder (${root}/{version}/); not checked`);

  const passed: string[] = [];
  const failed: string[] = [];
  const removed = versions.filter((v) => !statSync(`${root}/${v}`, { throwIfNoEntry: false })?.isDirectory());
  for (const version of versions.filter((v) => !removed.includes(v))) {
    const dir = `${root}/${version}`;
    // The folder's name is the version's slug: one the service cannot take is said here, for the folder.
    const slugProblem = versionSlugProblem(version);
    if (slugProblem) {
      out.failure(`${dir}: the folder's name ${slugProblem}; rename the folder`);
      failed.push(version);
      continue;
    }
    if (!existsSync(`${dir}/version.json`)) {
      out.problems('error', [{ path: `${dir}/version.json`, message: `missing: each folder under ${root} is a version and needs its version.json` }]);
      out.failure(`${version}: not ${mode === 'real' ? 'published' : 'checked'}: ${dir} has no version.json`, false);
      failed.push(version);
      continue;
    }
    (await pushVersion(dir, version, mode, service, out) ? passed : failed).push(version);
  }

  // Folders deleted since the base commit: their versions are deleted on the service only when asked.
  const deleted: string[] = [];
  const kept: string[] = [];
  const toDelete: string[] = [];
  const absent: string[] = [];
  for (const version of removed) {
    const dir = `${root}/${version}`;
    if (!deleteRemoved) {
      out.warning(`${dir} was deleted, but version ${version} stays on the service; --delete-removed deletes it (the example workflow passes it when the Actions variable HELP_DELETE_REMOVED_VERSIONS is true)`);
      kept.push(version);
    } else if (mode === 'offline') {
      out.result(`${version}: ${dir} was deleted; a real run deletes version ${version} on the service if it has it (offline check: nothing deleted, the service not asked)`);
      toDelete.push(version);
    } else if (mode === 'dry-run') {
      // The service is asked what it holds, so the dry run says what the real run would delete.
      try {
        const answer = await call(service!, 'GET', `/versions/${encodeURIComponent(version)}`);
        if (answer.status === 200) {
          const status = (answer.body as { status?: unknown } | undefined)?.status;
          out.result(`${version}: ${dir} was deleted; a real run deletes version ${version} on the service${typeof status === 'string' ? `, where it is ${status}` : ''} (dry run: nothing deleted)`);
          toDelete.push(version);
        } else if (answer.status === 404) {
          out.result(`${version}: ${dir} was deleted and the service has no such version: a real run deletes nothing (dry run)`);
          absent.push(version);
        } else {
          out.failure(`${version}: cannot tell whether a real run would delete it: ${refusal(answer)}`);
          failed.push(version);
        }
      } catch (err) {
        if (!(err instanceof Unreachable)) throw err;
        out.failure(`${version}: cannot tell whether a real run would delete it: ${err.message}`);
        failed.push(version);
      }
    } else {
      try {
        const answer = await call(service!, 'DELETE', `/versions/${encodeURIComponent(version)}`);
        if (answer.status === 200) {
          out.result(`${version}: deleted on the service (${dir} was deleted)`);
          deleted.push(version);
        } else if (answer.status === 404) {
          out.result(`${version}: ${dir} was deleted and the service has no such version: nothing to delete`);
          deleted.push(version);
        } else {
          out.failure(`${version}: not deleted: ${refusal(answer)}`);
          failed.push(version);
        }
      } catch (err) {
        if (!(err instanceof Unreachable)) throw err;
        out.failure(`${version}: not deleted: ${err.message}`);
        failed.push(version);
      }
    }
  }

  const list = (names: string[]) => (names.length === 1 ? names[0] : `${names.length} versions (${names.join(', ')})`);
  const verb = mode === 'real' ? 'published' : mode === 'dry-run' ? 'passed the dry run' : 'passed the offline check';
  const done = [
    passed.length > 0 && `${list(passed)} ${verb}`,
    deleted.length > 0 && `${list(deleted)} deleted on the service`,
    toDelete.length > 0 && `${list(toDelete)} to be deleted on the service by a real run`,
    absent.length > 0 && `${list(absent)} deleted here and not on the service: nothing to delete`,
    kept.length > 0 && `${list(kept)} deleted here but kept on the service`,
  ].filter(Boolean);
  if (failed.length > 0) {
    out.failure(`Failed: ${failed.join(', ')} (${failed.length} of ${versions.length} versions)${done.length > 0 ? `; ${done.join('; ')}` : ''}.`, false);
    return 1;
  }
  out.result(`Done: ${done.join('; ')}.`);
  return 0;
}

/** strip-stamps: a line per file that carries stamps, then what was done. */
function stripCommand(dir: string, dryRun: boolean, out: Output): number {
  const { versions, changed, problems } = stripStamps(dir, dryRun);
  out.problems('error', problems);
  if (versions.length === 0) {
    out.failure(`No version folders at or below ${dir} (a folder holding version.json): nothing to strip.`);
    return 1;
  }
  for (const path of changed) out.result(`${path}: ${dryRun ? 'carries stamps' : 'stamps removed'}`);
  const files = `${changed.length} file${changed.length === 1 ? '' : 's'}`;
  const where = `${versions.length} version folder${versions.length === 1 ? '' : 's'} under ${dir}`;
  const done = dryRun ? `Dry run: ${files} of ${where} carry stamps; nothing changed.` : `Done: stamps removed from ${files} of ${where}.`;
  if (problems.length > 0) {
    out.failure(`${done} ${problems.length} file(s) could not be stripped (see above) and were left as they are.`, false);
    return 1;
  }
  out.result(done);
  return 0;
}

/** Why `slug` cannot name a version (a sentence part), or null when it can. */
function versionSlugProblem(slug: string): string | null {
  if (slug === 'latest') return 'is "latest", which the service keeps for the version marked latest';
  if (!isVersionSlug(slug)) return 'is not a version slug: lowercase letters and digits separated by single "-", "_" or "." (v2, 2026.1), at most 64 characters, not a name Windows keeps for devices (con, nul, …)';
  return null;
}
