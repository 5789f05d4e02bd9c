#!/usr/bin/env node
// Posts a folder of content files (version.json and {lang}/{slug}.md) to a help content service's
// import-files endpoint. No dependencies: Node.js 20 or later. Served by the service itself at
// {HELP_URL}/cli/help-push.mjs, so a content repository's CI can fetch the version that matches.
//
//   HELP_URL=https://help.example.com/help/v1 HELP_KEY=hcs_... \
//     node help-push.mjs push --dir docs/v2 --version v2 [--dry-run]
//
// Validation errors are printed as `path:line: message` (and as GitHub annotations inside GitHub
// Actions). Exit status: 0 done, 1 refused or failed, 2 usage error.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = `Usage: help-push push --dir DIR --version VERSION [--dry-run]
  Environment: HELP_URL (the API base, e.g. https://help.example.com/help/v1), HELP_KEY (an API key;
  a real run on a locked published version needs a publisher key).`;

/**
 * Every file below `dir`, with its path as the repository names it (`docs/v2/en/intro.md`): relative
 * to the current folder when `dir` is inside it, else relative to `dir` itself.
 */
export function collectFiles(dir) {
  const out = [];
  const inside = !relative(process.cwd(), dir).startsWith('..') && !isAbsolute(relative(process.cwd(), dir));
  const root = inside ? process.cwd() : dir;
  const walk = (current) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push({ path: relative(root, full).split(sep).join('/'), content: readFileSync(full, 'utf8') });
    }
  };
  walk(dir);
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

const annotate = process.env.GITHUB_ACTIONS === 'true';
const problemLine = (kind, p) => `${p.path}${p.line ? `:${p.line}` : ''}: ${kind === 'warning' ? 'warning: ' : ''}${p.message}`;
// GitHub workflow commands: data escapes %, CR and LF; properties also escape : and ,.
const escapeData = (text) => String(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (text) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
const annotation = (kind, p) => `::${kind} file=${escapeProperty(p.path)}${p.line ? `,line=${p.line}` : ''}::${escapeData(p.message)}`;

function report(kind, problems, stream) {
  for (const p of problems ?? []) {
    stream.write(`${problemLine(kind, p)}\n`);
    if (annotate) process.stdout.write(`${annotation(kind, p)}\n`);
  }
}

/** Runs the command line; returns the exit status. */
export async function main(argv, env = process.env) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { dir: { type: 'string' }, version: { type: 'string' }, 'dry-run': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    process.stderr.write(`${err.message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const missing = [positionals[0] !== 'push' && 'the command "push"', !values.dir && '--dir', !values.version && '--version', !env.HELP_URL && 'HELP_URL', !env.HELP_KEY && 'HELP_KEY'].filter(Boolean);
  if (missing.length > 0) {
    process.stderr.write(`Missing ${missing.join(', ')}\n${USAGE}\n`);
    return 2;
  }
  if (!statSync(values.dir, { throwIfNoEntry: false })?.isDirectory()) {
    process.stderr.write(`${values.dir} is not a folder\n`);
    return 2;
  }
  const files = collectFiles(values.dir);
  const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.content), 0);
  const dryRun = values['dry-run'] === true;
  const base = env.HELP_URL.replace(/\/+$/, '');
  const url = `${base}/versions/${encodeURIComponent(values.version)}/import-files${dryRun ? '?dryRun=true' : ''}`;
  process.stderr.write(`${dryRun ? 'Checking' : 'Publishing'} ${files.length.toLocaleString('en')} files (${(bytes / 1048576).toFixed(1)} MB) from ${values.dir} as version ${values.version}…\n`);
  let res;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.HELP_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ files, dryRun }),
      signal: AbortSignal.timeout(300_000),
    });
  } catch (err) {
    process.stderr.write(`Could not reach ${base}: ${err.cause?.message ?? err.message}\n`);
    return 1;
  }
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    process.stderr.write(`${res.status} ${res.statusText}: ${text.slice(0, 500)}\n`);
    return 1;
  }
  if (!res.ok) {
    const e = body.error ?? {};
    report('error', e.errors, process.stderr);
    report('warning', e.warnings, process.stderr);
    process.stderr.write(`${values.version}: refused (${res.status} ${e.code ?? ''}): ${e.message ?? text.slice(0, 300)}\n`);
    return 1;
  }
  report('warning', body.warnings, process.stderr);
  const s = body.summary;
  process.stdout.write(
    `${values.version}: ${s.created} created, ${s.updated} updated, ${s.deleted} deleted, ${s.unchanged} unchanged${dryRun ? ' (dry run: nothing written)' : `; now ${body.version.status}${body.version.isLatest ? ', latest' : ''}`}` +
      `${body.workingCopyDeleted ? '; working copy deleted' : ''}${body.requestsImported ? `; ${body.requestsImported} publish request(s) imported` : ''}\n`,
  );
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('help-push.mjs')) {
  process.exitCode = await main(process.argv.slice(2));
}
