import * as fs from 'node:fs';
import { join } from 'node:path';
import { readTextIfExists, writeFileDurable } from '../storage/durable-fs.ts';
import type { WebhookEventType } from './events.ts';

/** A delivery waiting to be sent, or to be sent again. */
export interface Pending {
  /** The `webhook-id`: the same on every attempt, so a receiver can drop a repeat. */
  id: string;
  subscription: string;
  type: WebhookEventType;
  /** The exact JSON sent (and signed). */
  body: string;
  attempts: number;
  /** When the event was queued, and when the next attempt is due (ms since the epoch). */
  queuedAt: number;
  dueAt: number;
}

/** One attempt, as the delivery log keeps it. */
export interface LoggedAttempt {
  id: string;
  type: WebhookEventType;
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when no answer came (refused target, connection error, timeout). */
  status: number | null;
  ok: boolean;
  ms: number;
  error: string | null;
  /** What happens next: `delivered`, `retry` (at `retryAt`), `given_up`, or `dropped` (the subscription is disabled). */
  outcome: 'delivered' | 'retry' | 'given_up' | 'dropped';
  retryAt?: string;
}

/** Attempts kept per subscription in its log, newest last. */
export const LOG_LENGTH = 100;

interface QueueDocument {
  pending: Pending[];
  log: Record<string, LoggedAttempt[]>;
}

/**
 * The deliveries not yet made and the log of attempts, in `webhook-queue.json` in the data
 * directory. Each change is written durably (temp file, fsync, rename, fsync of the folder) before
 * its promise resolves: a delivery queued is on disk before the write that caused it is answered,
 * and one sent is taken off only after its receiver's 2xx. A crash in between sends it again: at
 * least once, never lost. Saves run one after another, each writing the whole queue as it was when
 * asked, so the file on disk is never older than the last save that resolved.
 */
export class DeliveryQueue {
  readonly path: string;
  /** Where a save is staged before its rename: a crash's leftovers there are cleared at the next start. */
  private readonly tempDir: string;
  private doc: QueueDocument;
  private saving: Promise<void> = Promise.resolve();
  private staged = false;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'webhook-queue.json');
    this.tempDir = join(dataDir, 'webhook-queue.tmp');
    this.doc = read(this.path);
  }

  pending(): readonly Pending[] {
    return this.doc.pending;
  }

  log(subscription: string): readonly LoggedAttempt[] {
    return this.doc.log[subscription] ?? [];
  }

  /** Queues deliveries. */
  add(deliveries: readonly Pending[]): Promise<void> {
    this.doc.pending.push(...deliveries);
    return this.save();
  }

  /** Records an attempt, and replaces the delivery (its next attempt) or takes it off (`next` null). */
  record(delivery: Pending, attempt: LoggedAttempt, next: Pending | null): Promise<void> {
    const at = this.doc.pending.findIndex((p) => p.id === delivery.id && p.subscription === delivery.subscription);
    // Forgotten while it was being sent: its subscription was deleted, and its log with it.
    if (at < 0) return Promise.resolve();
    if (next === null) this.doc.pending.splice(at, 1);
    else this.doc.pending[at] = next;
    const log = (this.doc.log[delivery.subscription] ??= []);
    log.push(attempt);
    if (log.length > LOG_LENGTH) log.splice(0, log.length - LOG_LENGTH);
    return this.save();
  }

  /** Forgets a subscription's deliveries and log (it was deleted). */
  forget(subscription: string): Promise<void> {
    const before = this.doc.pending.length;
    this.doc.pending = this.doc.pending.filter((p) => p.subscription !== subscription);
    if (before === this.doc.pending.length && this.doc.log[subscription] === undefined) return Promise.resolve();
    delete this.doc.log[subscription];
    return this.save();
  }

  /** Resolves when every save asked for so far is on disk (or failed). */
  settled(): Promise<void> {
    return this.saving;
  }

  private save(): Promise<void> {
    const text = `${JSON.stringify(this.doc)}\n`;
    const done = this.saving.then(async () => {
      if (!this.staged) {
        await fs.promises.rm(this.tempDir, { recursive: true, force: true });
        await fs.promises.mkdir(this.tempDir, { recursive: true });
        this.staged = true;
      }
      await writeFileDurable(this.tempDir, this.path, text);
    });
    this.saving = done.catch(() => undefined);
    return done;
  }
}

function read(path: string): QueueDocument {
  const text = readTextIfExists(path);
  if (text === null) return { pending: [], log: {} };
  const damaged = (why: string) => new Error(`${path} ${why}: fix it, or move it away to start with an empty queue (its deliveries are then not made)`);
  let doc: Partial<QueueDocument>;
  try {
    doc = JSON.parse(text) as Partial<QueueDocument>;
  } catch (err) {
    throw damaged(`is not valid JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(doc.pending) || typeof doc.log !== 'object' || doc.log === null) throw damaged('does not hold { "pending": [ … ], "log": { … } }');
  return { pending: doc.pending, log: doc.log };
}
