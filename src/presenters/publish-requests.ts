import type { PublishRequest } from '../publishing/requests.ts';

/** A publish request as the API shows it (the bookkeeping field `checkedAt` stays inside). */
export function presentRequest(r: PublishRequest) {
  return {
    id: r.id,
    targetSlug: r.targetSlug,
    sourceSlug: r.sourceSlug,
    prNumber: r.prNumber,
    prUrl: r.prUrl,
    branch: r.branch,
    status: r.status,
    summary: r.summary,
    counts: { created: r.summary.created, updated: r.summary.updated, deleted: r.summary.deleted, unchanged: r.summary.unchanged, files: r.files },
    author: r.author,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    mergedAt: r.mergedAt,
    closedAt: r.closedAt,
    importedAt: r.importedAt,
    failure: r.failure,
  };
}
