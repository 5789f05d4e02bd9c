import { createHash } from 'node:crypto';
import { randomId, type Clock, type NewId } from '../clock.ts';
import type { Logger } from 'pino';
import type { PublishingConfig } from '../config.ts';
import { filePaths, renderFile } from '../content/file-set.ts';
import { readIncomingFiles } from '../content/incoming.ts';
import { DEFAULT_PORTAL_PATH } from '../content/link-rules.ts';
import { replaceWithFiles } from '../domain/import-files.ts';
import type { FilesSummary } from '../domain/import-files.ts';
import type { VersionState } from '../domain/types.ts';
import { AppError, notFound } from '../errors.ts';
import type { Catalog } from '../store/catalog.ts';
import type { Author, Writer } from '../store/writer.ts';
import type { RepositoryHost } from './github.ts';
import { describeChanges, pullRequestBody } from './pull-request.ts';
import { createWorkingCopy, discardWorkingCopy } from './working-copies.ts';
import { requestOpen, type PublishRequest, type RequestStore } from './requests.ts';
import { settlesWithin } from '../waits.ts';

/** How long an open request's state from GitHub is trusted before a list asks again. */
const REFRESH_AFTER_MS = 30_000;
/** At most this many requests are refreshed by one list call. */
const REFRESH_MAX = 10;
/** How long a list waits for the host's answers before it answers with what it has. */
const LIST_WAIT_MS = 3_000;


/**
 * Publishing through reviewed pull requests: working copies, publish requests and their life
 * cycle (open → merged → imported, or closed, or failed).
 */
export class Publisher {
  constructor(
    private readonly config: PublishingConfig | null,
    private readonly catalog: Catalog,
    private readonly writer: Writer,
    private readonly store: RequestStore,
    private readonly host: RepositoryHost | null,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly newId: NewId = randomId,
    /** Where the portal's pages are: links to them in content are checked as links within the version. */
    private readonly portalPath: string = DEFAULT_PORTAL_PATH,
  ) {}

  get enabled(): boolean {
    return this.config !== null;
  }

  private requireEnabled(): { config: PublishingConfig; host: RepositoryHost } {
    if (!this.config || !this.host) throw new AppError('publishing_disabled', 'Publishing through pull requests is off (HELP_PUBLISH_VIA_PR)');
    return { config: this.config, host: this.host };
  }

  /** The working copy of a published version: the existing one, or a new hidden deep copy. */
  createWorkingCopy(version: string, author: Author): Promise<{ state: VersionState; existed: boolean }> {
    this.requireEnabled();
    return createWorkingCopy(this.writer, version, author);
  }

  /** Discards the working copy (by the original's slug or its own); refused while a request for it is open. */
  discardWorkingCopy(version: string, author: Author): Promise<string> {
    return discardWorkingCopy(this.writer, this.catalog, this.pendingFrom, version, author);
  }

  /** The request made from `slug` that is being opened or is open, if any: deleting or discarding `slug` waits for it. */
  readonly pendingFrom = (slug: string): PublishRequest | undefined => this.store.list().find((r) => r.sourceSlug === slug && isPending(r));

  /** The content files a request would publish, checked exactly as import-files checks them. */
  prepare(sourceSlug: string) {
    const { config } = this.requireEnabled();
    const source = this.catalog.state(sourceSlug);
    if (source.meta.status !== 'draft') throw new AppError('invalid_state', `Version "${sourceSlug}" is ${source.meta.status}; publish requests are made from a draft or a working copy`, { version: sourceSlug });
    const targetSlug = source.meta.workingCopyOf ?? sourceSlug;
    const target = this.catalog.entry(targetSlug)?.state ?? null;
    // The files describe the target as it will be once live: published, with its own latest flag.
    // They carry no stamps, so a request's version.json changes only where what it says changed.
    const published = asTarget(source, targetSlug, target);
    const relative = [...filePaths(published)].map((path) => ({ path, content: renderFile(published, path)! }));
    const now = this.clock.time();
    const { incoming, warnings: found } = readIncomingFiles(relative, targetSlug, target, now, this.newId, undefined, this.portalPath);
    const { summary } = replaceWithFiles(target, incoming, now);
    const folder = config.pathPattern.replaceAll('{version}', targetSlug);
    // Named as the request's files are, where a reviewer finds them in the content repository.
    const warnings = found.map((w) => ({ ...w, path: `${folder}/${w.path}` }));
    const files = relative.map((f) => ({ path: `${folder}/${f.path}`, content: f.content }));
    const unchanged = changesNothing({ source, target, summary });
    if (unchanged) warnings.push({ path: `${folder}/version.json`, message: `nothing to publish: ${sourceSlug} holds what ${targetSlug} has, and a request would be refused` });
    const since = source.meta.workingCopyOf !== null && target ? changedSince(target, source.meta.createdAt) : [];
    if (since.length > 0) {
      const shown = since.slice(0, 5).join(', ') + (since.length > 5 ? ` and ${since.length - 5} more` : '');
      warnings.push({ path: `${folder}/version.json`, message: `${targetSlug} changed after ${sourceSlug} was made (${shown}): publishing the copy replaces those changes unless it has them too` });
    }
    return { source, targetSlug, target, folder, files, summary: { ...summary, languages: describeChanges(target, incoming) }, warnings, unchanged };
  }

  /** Opens a pull request for the content of a draft or working copy (recorded first, so a crash leaves a trace). */
  async request(sourceSlug: string, author: Author): Promise<PublishRequest> {
    const { host } = this.requireEnabled();
    const prepared = this.prepare(sourceSlug);
    // A pull request that changes nothing only asks a reviewer to look at nothing.
    if (prepared.unchanged) {
      throw new AppError('invalid_state', `Version "${sourceSlug}" holds what ${prepared.targetSlug} has: there is nothing to publish (edit it first)`, { version: sourceSlug });
    }
    const now = this.clock.time();
    const branch = `publish/${prepared.targetSlug}/${now.replace(/[-:]/g, '').replace('.', '')}`;
    const request: PublishRequest = {
      id: this.newId(),
      targetSlug: prepared.targetSlug,
      sourceSlug,
      branch,
      prNumber: null,
      prUrl: null,
      status: 'opening',
      summary: prepared.summary,
      files: prepared.files.length,
      author: author.name,
      createdAt: now,
      updatedAt: now,
      mergedAt: null,
      closedAt: null,
      importedAt: null,
      failure: null,
      checkedAt: null,
      sourceDigest: contentDigest(prepared.source),
    };
    await this.store.update((all) => {
      const open = all.find((r) => r.targetSlug === request.targetSlug && isPending(r));
      if (open) throw requestOpen(open, open.sourceSlug, `a new request for ${request.targetSlug}`);
      all.push(request);
    });
    try {
      const pr = await host.openPullRequest({
        branch,
        folder: prepared.folder,
        files: prepared.files,
        title: `Publish ${prepared.targetSlug}`,
        body: pullRequestBody(prepared, author.name),
        message: `Publish ${prepared.targetSlug} from ${sourceSlug}\n\nRequested by ${author.name} through the help content service.`,
      });
      return await this.set(request.id, { status: 'open', prNumber: pr.number, prUrl: pr.url });
    } catch (err) {
      const reason = describeHostError(err);
      this.log.warn({ err, request: request.id }, 'the repository host refused the publish request');
      const failed = await this.set(request.id, { status: 'failed', failure: reason });
      throw new AppError('upstream_failed', `The pull request could not be opened on the repository host: ${reason}`, { request: failed }, { cause: err });
    }
  }

  async cancel(id: string): Promise<PublishRequest> {
    const { host } = this.requireEnabled();
    const request = this.store.get(id);
    if (!request) throw notFound('route', `No publish request ${id}`, { resource: 'publish_request', id });
    if (request.status !== 'open' || request.prNumber === null) {
      const then = request.status === 'opening' ? ': its pull request is not confirmed yet; GET /publish-requests asks GitHub, and it becomes open (then cancel it) or failed' : '';
      throw new AppError('request_not_open', `Publish request ${id} is ${request.status}, not open${then}`, { status: request.status });
    }
    try {
      await host.closePullRequest(request.prNumber, request.branch);
    } catch (err) {
      // A pull request the host no longer has (deleted, or the repository moved) cannot be closed, and
      // nothing can merge it: the request is closed, saying so, rather than blocking its target for good.
      if ((err as { status?: number }).status === 404) {
        return this.set(id, { status: 'closed', closedAt: this.clock.time(), failure: `pull request #${request.prNumber} was not found on the repository host when cancelled` });
      }
      throw new AppError('upstream_failed', `Pull request #${request.prNumber} could not be closed on the repository host: ${describeHostError(err)}`, {}, { cause: err });
    }
    return this.set(id, { status: 'closed', closedAt: this.clock.time() });
  }

  /**
   * Requests, newest first; open ones are refreshed from GitHub when their state is older than 30 s.
   * A host slow to answer holds the list LIST_WAIT_MS at most: the refresh goes on, and the next list shows it.
   */
  async list(target?: string): Promise<PublishRequest[]> {
    if (this.host) {
      // One refresh at a time: lists made while the host is slow wait for the same one, not pile up calls.
      this.refreshing ??= this.refresh(this.store.list())
        .catch((err: unknown) => this.log.warn({ err }, 'could not refresh publish requests from the repository host'))
        .finally(() => (this.refreshing = null));
      await settlesWithin(this.refreshing, LIST_WAIT_MS);
    }
    return this.store.list(target);
  }

  private refreshing: Promise<void> | null = null;

  /** A pull request was closed (merged or not), as GitHub's webhook reports. */
  async pullRequestClosed(prNumber: number, merged: boolean, at: string): Promise<PublishRequest | null> {
    const request = this.store.list().find((r) => r.prNumber === prNumber && r.status === 'open');
    if (!request) return null;
    return this.set(request.id, merged ? { status: 'merged', mergedAt: at } : { status: 'closed', closedAt: at });
  }

  /**
   * The requests for `target` that an import of its files completes: those whose pull request is
   * merged. The webhook may not have said so yet (the automation that posts the merged files can
   * be faster), so an open one's pull request is looked at on the host; one still open there, or
   * one the host cannot tell about now, is not completed: an unrelated import must not mark it
   * imported (its content is not live) nor take its working copy.
   */
  async completedBy(target: string): Promise<PublishRequest[]> {
    const pending = this.store.list(target).filter((r) => r.status === 'open' || r.status === 'merged');
    const done: PublishRequest[] = [];
    for (const r of pending) {
      if (r.status === 'merged') done.push(r);
      else if (this.host && r.prNumber !== null) {
        try {
          const pr = await this.host.pullRequestState(r.prNumber);
          if (pr.merged) done.push(await this.set(r.id, { status: 'merged', mergedAt: pr.mergedAt, checkedAt: this.clock.time() }));
        } catch (err) {
          this.log.warn({ err, request: r.id }, 'could not ask the repository host whether a publish request is merged; it stays open');
        }
      }
    }
    return done;
  }

  /** Whether `source` (a working copy) holds just what `request` proposed from it; unknown for requests made before digests. */
  sourceUnchanged(request: PublishRequest, source: VersionState): boolean {
    return request.sourceDigest === undefined || request.sourceDigest === contentDigest(source);
  }

  /**
   * After a real import-files run: the requests its commit names (importedTrailer) are imported.
   * The commit is the record; this brings requests.json in line, and reconcileImports() does so at
   * start if the service stopped in between.
   */
  async imported(ids: readonly string[], at: string = this.clock.time()): Promise<number> {
    if (ids.length === 0) return 0;
    return this.store.update((all) => {
      let count = 0;
      for (const r of all) {
        if (ids.includes(r.id) && (r.status === 'open' || r.status === 'merged')) {
          Object.assign(r, { status: 'imported', importedAt: at, updatedAt: at });
          count++;
        }
      }
      return count;
    });
  }

  /**
   * At start: requests still open or merged whose import is already committed (the service stopped
   * between the commit and requests.json) become imported, with the commit's time.
   */
  async reconcileImports(messagesSince: (since: Date) => Promise<Array<{ message: string; time: Date }>>): Promise<number> {
    const pending = this.store.list().filter((r) => r.status === 'open' || r.status === 'merged');
    if (pending.length === 0) return 0;
    const oldest = new Date(Math.min(...pending.map((r) => Date.parse(r.createdAt))));
    let count = 0;
    // Oldest first, so each request gets the time of the first commit that imported it.
    for (const { message, time } of (await messagesSince(oldest)).reverse()) {
      const ids = importedIn(message).filter((id) => pending.some((r) => r.id === id));
      if (ids.length > 0) count += await this.imported(ids, time.toISOString());
    }
    return count;
  }

  /** At start: a request recorded but not confirmed (a crash in between) is matched to its pull request, or marked failed. */
  async reconcile(): Promise<void> {
    if (!this.host) return;
    for (const r of this.store.list().filter((x) => x.status === 'opening')) {
      try {
        const pr = await this.host.findPullRequest(r.branch);
        await this.set(r.id, pr ? { status: 'open', prNumber: pr.number, prUrl: pr.url } : { status: 'failed', failure: 'interrupted before the pull request was opened' });
      } catch (err) {
        this.log.warn({ err, request: r.id }, 'could not reconcile a publish request; will retry');
      }
    }
  }

  private async refresh(requests: PublishRequest[]): Promise<void> {
    const due = requests.filter((r) => r.status === 'opening' || (r.status === 'open' && r.prNumber !== null && Date.now() - Date.parse(r.checkedAt ?? r.createdAt) > REFRESH_AFTER_MS)).slice(0, REFRESH_MAX);
    if (due.some((r) => r.status === 'opening')) await this.reconcile();
    await Promise.all(
      due
        .filter((r) => r.status === 'open')
        .map(async (r) => {
          try {
            const pr = await this.host!.pullRequestState(r.prNumber!);
            const checkedAt = this.clock.time();
            if (pr.merged) await this.set(r.id, { status: 'merged', mergedAt: pr.mergedAt, checkedAt });
            else if (pr.state === 'closed') await this.set(r.id, { status: 'closed', closedAt: pr.closedAt, checkedAt });
            else await this.set(r.id, { checkedAt }, false);
          } catch (err) {
            this.log.warn({ err, request: r.id }, 'could not refresh a publish request from the repository host');
          }
        }),
    );
  }

  private set(id: string, patch: Partial<PublishRequest>, touch = true): Promise<PublishRequest> {
    return this.store.update((all) => {
      const r = all.find((x) => x.id === id)!;
      Object.assign(r, patch, touch ? { updatedAt: this.clock.time() } : {});
      return { ...r };
    });
  }
}

const isPending = (r: PublishRequest) => r.status === 'open' || r.status === 'opening';

/** The nodes of `state` (and its own fields, as "version.json") changed after `at`: what a working copy made at `at` lacks. */
function changedSince(state: VersionState, at: string): string[] {
  const out = state.meta.updatedAt > at ? ['version.json'] : [];
  for (const [slug, node] of state.nodes) {
    if (node.updatedAt > at || [...(state.translations.get(slug)?.values() ?? [])].some((t) => t.updatedAt > at)) out.push(slug);
  }
  return out;
}

/**
 * Whether publishing the working copy of `p` would change no node, translation or field of its
 * original that readers see (a draft publishes itself: its pull request brings its folder).
 */
function changesNothing(p: { source: VersionState; target: VersionState | null; summary: FilesSummary }): boolean {
  if (p.source.meta.workingCopyOf === null || p.target === null || p.summary.created + p.summary.updated + p.summary.deleted > 0) return false;
  const a = p.source.meta;
  const b = p.target.meta;
  return a.label === b.label && a.sortOrder === b.sortOrder && a.languages.join() === b.languages.join();
}

/**
 * A digest of a version's content (ids, stamps and text): equal digests, equal content. The files are
 * rendered with their stamps, as they were when digests began to be recorded, so a request recorded
 * then still compares equal with its unchanged source.
 */
export function contentDigest(state: VersionState): string {
  const hash = createHash('sha256');
  for (const path of [...filePaths(state)].sort()) hash.update(path).update('\0').update(renderFile(state, path, true) ?? '').update('\0');
  return hash.digest('hex');
}

function describeHostError(err: unknown): string {
  const e = err as { status?: number; message?: string; request?: { method?: string; url?: string }; response?: unknown };
  if (!e.status) return e.message ?? String(err);
  // octokit reports a host it could not reach, or that did not answer in time, as HTTP 500 without a response.
  if (e.status === 500 && e.response === undefined) return `could not be reached (${e.message ?? 'no answer'}); nothing was changed there, and the request can be made again`;
  // Which call failed (reading the base branch is not opening the pull request), and what to check for the usual causes.
  let call = '';
  try {
    if (e.request?.method && e.request.url) call = `${e.request.method} ${decodeURIComponent(new URL(e.request.url).pathname)} `;
  } catch {
    call = '';
  }
  const check = HOST_CHECKS[e.status] ? ` (${HOST_CHECKS[e.status]})` : '';
  return `${call}answered HTTP ${e.status}: ${e.message ?? 'error'}${check}`;
}

/** What to look at when the repository host answers with these statuses. */
const HOST_CHECKS: Record<number, string> = {
  401: 'check HELP_GITHUB_TOKEN: the host does not take it',
  403: 'the token may not write there: it needs contents and pull requests write access to HELP_GITHUB_REPO',
  404: 'check HELP_GITHUB_REPO (owner/name) and HELP_GITHUB_BASE_BRANCH, and that the token can see the repository',
};

/** The line an import-files commit names the publish requests it completes with (a git trailer). */
const TRAILER = 'Publish-Requests-Imported:';

export const importedTrailer = (ids: readonly string[]) => (ids.length > 0 ? `\n\n${TRAILER} ${ids.join(', ')}` : '');

/** The request ids a commit message's trailer names. */
export function importedIn(message: string): string[] {
  const line = message.split('\n').find((l) => l.startsWith(TRAILER));
  return line ? line.slice(TRAILER.length).split(',').map((id) => id.trim()).filter(Boolean) : [];
}

/** `source` as the target version it is to become: published, visible, with the target's latest flag. */
function asTarget(source: VersionState, targetSlug: string, target: VersionState | null): VersionState {
  const meta = { ...source.meta, status: 'published' as const, hidden: false, workingCopyOf: null, isLatest: target?.meta.isLatest ?? false };
  return { ...source, slug: targetSlug, meta };
}
