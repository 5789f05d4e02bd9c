import { checkOffline } from './offline.ts';
import { notUtf8Problem } from '../storage/blob-text.ts';
import { collectFiles, totalBytes, type Skipped } from './files.ts';
import type { Output, Problem } from './output.ts';
import { call, refusal, Unreachable, type Service } from './service.ts';

/** `real` publishes; `dry-run` asks the service what a real run would do; `offline` checks here. */
export type Mode = 'real' | 'dry-run' | 'offline';

/**
 * Pushes (or checks) one version folder and prints the outcome: problems as `path:line: message`,
 * then one line for the version. Answers whether the version passed.
 */
export async function pushVersion(dir: string, version: string, mode: Mode, service: Service | null, out: Output): Promise<boolean> {
  const skipped: Skipped[] = [];
  const files = collectFiles(dir, process.cwd(), skipped);
  out.problems('warning', skipped);
  // Refused here, whatever the mode: the service would take the replaced text, and the file's own bytes would be lost.
  const garbled = files.flatMap((f) => (f.notUtf8 ? [{ path: f.path, line: f.notUtf8.line, message: notUtf8Problem(f.notUtf8) }] : []));
  if (garbled.length > 0) return refused(out, version, garbled, [], `refused: ${garbled.length} file(s) are not UTF-8 text`);
  const size = `${files.length.toLocaleString('en')} files (${(totalBytes(files) / 1048576).toFixed(1)} MB)`;
  out.progress(`${mode === 'real' ? 'Publishing' : 'Checking'} ${size} from ${dir} as version ${version}${mode === 'offline' ? ' (offline)' : ''}…`);

  if (mode === 'offline') {
    const r = checkOffline(files, version);
    if (!r.ok) return refused(out, version, r.errors, r.warnings, `refused (${r.code}, offline check): ${r.message}`);
    out.problems('warning', r.warnings);
    out.result(`${version}: valid, ${r.nodes} node(s) in ${r.languages.join(', ')} (offline check: nothing sent)`);
    return true;
  }

  const dryRun = mode === 'dry-run';
  let answer;
  try {
    answer = await call(service!, 'POST', `/versions/${encodeURIComponent(version)}/import-files${dryRun ? '?dryRun=true' : ''}`, { files, dryRun });
  } catch (err) {
    if (!(err instanceof Unreachable)) throw err;
    out.failure(`${version}: ${err.message}`);
    return false;
  }
  const body = answer.body;
  if (answer.status < 200 || answer.status > 299 || body === undefined) {
    const e = body?.error ?? {};
    return refused(out, version, e.errors ?? [], e.warnings ?? [], refusal(answer));
  }
  out.problems('warning', body.warnings);
  const s = body.summary;
  out.result(
    `${version}: ${s.created} created, ${s.updated} updated, ${s.deleted} deleted, ${s.unchanged} unchanged` +
      `${dryRun ? ' (dry run: nothing written)' : `; now ${body.version.status}${body.version.isLatest ? ', latest' : ''}`}` +
      `${body.workingCopyDeleted ? '; working copy deleted' : ''}${body.requestsImported ? `; ${body.requestsImported} publish request(s) imported` : ''}`,
  );
  return true;
}

function refused(out: Output, version: string, errors: Problem[], warnings: Problem[], why: string): false {
  out.problems('error', errors);
  out.problems('warning', warnings);
  // Problems in files are annotated on the files already; a refusal without any is annotated itself.
  out.failure(`${version}: ${why}`, errors.length === 0);
  return false;
}
