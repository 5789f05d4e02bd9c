import type { ContentTags } from '../store/content-tags.ts';
import type { ReplicaConfig } from './config.ts';
import type { Follower, ReplicaHealth } from './follower.ts';
import type { RevisionFeed } from './revision-feed.ts';

/** The service's part in replication: a primary (the default) or a replica following one (docs/replicas.md). */
export interface Replication {
  /** The commit answers are served from, moving with each write (primary) or swap (replica). */
  revisions: RevisionFeed;
  /** What the validators of answers are derived from. */
  tags: ContentTags;
  /** Null on a primary. */
  replica: { config: ReplicaConfig; follower: Follower } | null;
}

/**
 * What /healthz says about replication: the role, the revision served and, on a replica, its lag and
 * last contact with the primary. The primary's address and why following it fails are for callers
 * with a credential (`known`).
 */
export function replicationHealth(r: Replication, known: boolean): Partial<ReplicaHealth> | { role: 'primary'; revision: string | null } {
  if (r.replica === null) return { role: 'primary', revision: r.revisions.current };
  const { primary, primaryRevision, problem, ...open } = r.replica.follower.health();
  return known ? { ...open, primary, primaryRevision, problem } : open;
}
