import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Repository } from '../storage/repository.ts';
import type { Catalog } from '../store/catalog.ts';
import { ContentTags } from '../store/content-tags.ts';
import type { Writer } from '../store/writer.ts';
import type { ReplicaConfig } from './config.ts';
import { Follower } from './follower.ts';
import { PrimaryGit } from './primary-git.ts';
import type { Replication } from './replication.ts';
import { RevisionFeed } from './revision-feed.ts';

/** Longest pause between two attempts to clone a primary that cannot be reached at first start. */
const MAX_CLONE_PAUSE_MS = 30_000;

/**
 * A replica's first start: clones the primary's repository into `gitdir` when there is none yet
 * (progress in the log), trying again until the primary answers. A replica that has its repository
 * starts from it and catches up once it serves.
 */
export async function cloneIfNew(replica: ReplicaConfig | null, gitdir: string, log: Logger): Promise<void> {
  if (replica === null || fs.existsSync(join(gitdir, 'HEAD'))) return;
  const git = new PrimaryGit(replica.primary, replica.key, log);
  let pause = replica.pollMs;
  for (;;) {
    const started = performance.now();
    log.info({ primary: git.url }, 'replica: cloning the primary\'s repository');
    try {
      await git.clone(gitdir, new AbortController().signal);
      log.info({ primary: git.url, ms: Math.round(performance.now() - started) }, 'replica: cloned the primary\'s repository');
      return;
    } catch (err) {
      log.warn({ primary: git.url, reason: (err as Error).message, retryInMs: pause }, 'replica: the primary\'s repository could not be cloned; trying again');
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, MAX_CLONE_PAUSE_MS);
    }
  }
}

/** Replication as the service runs it: the revision served, content validators, and on a replica its follower. */
export interface RunningReplication extends Replication {
  /** After the load: the head is served; a replica starts following its primary. */
  begin(): void;
  close(): Promise<void>;
}

/**
 * Sets up replication before the content is loaded (the validators follow every version set).
 * `settings`: what answers depend on besides the content (ContentTags).
 */
export function startReplication(o: { replica: ReplicaConfig | null; catalog: Catalog; repo: Repository; writer: Writer; settings: string; log: Logger }): RunningReplication {
  const revisions = new RevisionFeed();
  const tags = new ContentTags(o.catalog, o.repo, o.settings);
  const follower = o.replica ? new Follower(o.replica, { repo: o.repo, catalog: o.catalog, revisions, log: o.log }, o.log) : null;
  // A write is answered after its listeners: a client that reads its write's revision finds it served.
  // The head, not the write's own commit: writes indexed in parallel may finish out of order, and the
  // head's states are in the catalog from the moment its commit is made.
  if (follower === null) o.writer.onCommit(({ revision }) => revisions.set(o.repo.headCommit, [revision]));
  return {
    revisions,
    tags,
    replica: o.replica && follower ? { config: o.replica, follower } : null,
    begin() {
      revisions.set(o.repo.headCommit);
      follower?.start();
    },
    close: async () => follower?.close(),
  };
}
