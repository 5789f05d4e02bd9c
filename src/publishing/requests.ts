import * as fs from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../auth/json-file.ts';
import type { FilesSummary } from '../domain/import-files.ts';
import { AppError } from '../errors.ts';
import { Mutex } from '../storage/mutex.ts';

/**
 * `opening`: recorded, pull request not yet confirmed (a crash here is reconciled at start);
 * `open`, `merged`, `closed`, `imported`, `failed` as in the contract.
 */
export type RequestStatus = 'opening' | 'open' | 'merged' | 'closed' | 'imported' | 'failed';

export interface PublishRequest {
  id: string;
  /** The version the pull request publishes. */
  targetSlug: string;
  /** The draft or working copy its content came from. */
  sourceSlug: string;
  branch: string;
  prNumber: number | null;
  prUrl: string | null;
  status: RequestStatus;
  summary: FilesSummary & { languages: Record<string, { created: string[]; updated: string[]; deleted: string[] }> };
  files: number;
  author: string;
  createdAt: string;
  updatedAt: string;
  mergedAt: string | null;
  closedAt: string | null;
  importedAt: string | null;
  failure: string | null;
  /** When GitHub was last asked about this request (for the bounded refresh on list). */
  checkedAt: string | null;
  /**
   * The source's content when the request was made (contentDigest): an import that completes the
   * request drops the working copy only if it still holds just that. Absent in requests made before.
   */
  sourceDigest?: string;
}

/**
 * Publish requests, kept in `publish-requests.json` in the data directory (not in the content
 * repository: they are about the service's workflow, not content). Every change is written
 * atomically and durably before it is acknowledged.
 */
export class RequestStore {
  private readonly path: string;
  private requests: PublishRequest[];
  private readonly mutex = new Mutex();
  private readonly watchers: Array<(before: readonly PublishRequest[], after: readonly PublishRequest[]) => void> = [];

  constructor(dataDir: string) {
    this.path = join(dataDir, 'publish-requests.json');
    this.requests = fs.existsSync(this.path) ? ((JSON.parse(fs.readFileSync(this.path, 'utf8')) as { requests: PublishRequest[] }).requests ?? []) : [];
  }

  /** Newest first. */
  list(target?: string): PublishRequest[] {
    return this.requests.filter((r) => target === undefined || r.targetSlug === target).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  }

  get(id: string): PublishRequest | undefined {
    return this.requests.find((r) => r.id === id);
  }

  /** Calls `watcher` with the list before and after each saved change (webhooks). */
  watch(watcher: (before: readonly PublishRequest[], after: readonly PublishRequest[]) => void): void {
    this.watchers.push(watcher);
  }

  /** Runs `change` on the list under a lock and saves the result; returns what `change` returns. */
  update<T>(change: (requests: PublishRequest[]) => T): Promise<T> {
    return this.mutex.run(async () => {
      const copy = this.requests.map((r) => ({ ...r }));
      const result = change(copy);
      writeAtomic(this.path, `${JSON.stringify({ requests: copy }, null, 2)}\n`);
      const before = this.requests;
      this.requests = copy;
      for (const watcher of this.watchers) watcher(before, copy);
      return result;
    });
  }
}

/**
 * 409 request_open: `doing` (a new request, discarding or deleting `slug`) waits for the pending
 * request `open`, which is named with its pull request, or as being opened, and how to end it.
 */
export function requestOpen(open: PublishRequest, slug: string, doing: string): AppError {
  const where = open.prNumber !== null ? `is open (pull request #${open.prNumber})` : 'is being opened (its pull request is not confirmed yet: GET /publish-requests checks it)';
  return new AppError('request_open', `Publish request ${open.id} from ${slug} ${where}; ${doing} waits until it is merged, closed or cancelled (DELETE /publish-requests/${open.id})`, {
    request: open.id,
    prUrl: open.prUrl,
  });
}
