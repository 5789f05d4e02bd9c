import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ReloadingFile } from '../auth/reloading.ts';
import type { PublishRequest } from '../publishing/requests.ts';
import type { Writer } from '../store/writer.ts';
import { AllowList } from './addresses.ts';
import type { WebhookConfig } from './config.ts';
import { eventsOf, type WebhookEvent } from './events.ts';
import { DeliveryQueue, type LoggedAttempt, type Pending } from './queue.ts';
import { send } from './send.ts';
import { sign } from './signature.ts';
import { SubscriptionFile, wants, type Subscription } from './subscriptions.ts';

/** Attempts under way at once, across subscriptions (one per subscription): a slow receiver does not hold up the others. */
const PARALLEL = 8;
/** The longest wait between two attempts of one delivery. */
const MAX_BACKOFF_MS = 3_600_000;

/**
 * Turns changes into signed deliveries and makes them: events are read from each version's states
 * before and after a commit (events.ts), queued durably for every subscription that wants them
 * (queue.ts), and sent with exponential backoff until a receiver answers 2xx or the retry window
 * closes, which disables the subscription with the reason.
 */
export class WebhookDispatcher {
  readonly subscriptions: SubscriptionFile;
  readonly queue: DeliveryQueue;
  readonly allow: AllowList;
  private readonly current: ReloadingFile<Subscription[]>;
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(
    dataDir: string,
    private readonly config: WebhookConfig,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.subscriptions = new SubscriptionFile(dataDir);
    this.queue = new DeliveryQueue(dataDir);
    this.allow = new AllowList(config.allowHosts);
    this.current = new ReloadingFile(this.subscriptions.path, () => this.subscriptions.read(), log, []);
  }

  /** Every subscription (as last written by the API or the CLI). */
  list(): readonly Subscription[] {
    return this.current.current();
  }

  /**
   * Follows the writer's commits from now on: each version's states before and after become events
   * naming the commit. The queue is written before the listener returns, so a write is answered
   * only once its deliveries are on disk.
   */
  follow(writer: Writer): void {
    writer.onCommit(({ revision, changes, event }) => {
      if (this.list().length === 0) return;
      const events = changes.flatMap((c) => eventsOf(c.slug, c.before, c.after, revision));
      if (event !== undefined) events.push({ type: event.type, data: { version: changes[0].slug, revision, ...event.data } });
      return this.enqueue(events);
    });
  }

  /** Publish requests that moved on (made, opened, merged, closed, imported, failed): `publish_request.updated`. */
  requestsChanged(before: readonly PublishRequest[], after: readonly PublishRequest[]): void {
    if (this.list().length === 0) return;
    const old = new Map(before.map((r) => [r.id, r]));
    const events: WebhookEvent[] = [];
    for (const r of after) {
      const was = old.get(r.id);
      if (was?.status === r.status && was.prNumber === r.prNumber) continue;
      events.push({ type: 'publish_request.updated', data: { version: r.targetSlug, revision: null, request: r.id, status: r.status, previousStatus: was?.status ?? null, source: r.sourceSlug, prUrl: r.prUrl } });
    }
    void this.enqueue(events);
  }

  /** Starts sending what is queued (what a previous run left too). */
  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Stops sending; attempts under way finish (within their timeout) and are recorded. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.inFlight.values()]);
    await this.queue.settled();
  }

  private async enqueue(events: readonly WebhookEvent[]): Promise<void> {
    const subscriptions = this.list();
    const at = this.now();
    const deliveries: Pending[] = [];
    for (const event of events) {
      const body = JSON.stringify({ type: event.type, timestamp: at.toISOString(), data: event.data });
      const id = `msg_${randomUUID()}`;
      for (const s of subscriptions) {
        if (wants(s, event.type, event.data.version)) deliveries.push({ id, subscription: s.id, type: event.type, body, attempts: 0, queuedAt: at.getTime(), dueAt: at.getTime() });
      }
    }
    if (deliveries.length === 0) return;
    try {
      await this.queue.add(deliveries);
    } catch (err) {
      // The commit stands; what is lost is said, with what would have been sent.
      this.log.error({ err, deliveries: deliveries.map((d) => ({ id: d.id, subscription: d.subscription, type: d.type })) }, 'webhook deliveries could not be queued');
      return;
    }
    this.schedule();
  }

  /** Sends what is due now, and sets the timer for the next one due. */
  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = Date.now();
    let next = Infinity;
    // One attempt at a time per subscription, in the order queued: a receiver that answers sees the
    // events of a version in the order of its commits (a delivery waiting for its retry lets later ones pass).
    const busy = new Set([...this.inFlight.keys()].map((key) => key.split('/')[0]));
    for (const p of [...this.queue.pending()]) {
      const key = `${p.subscription}/${p.id}`;
      if (busy.has(p.subscription)) continue;
      if (p.dueAt <= now && this.inFlight.size < PARALLEL) {
        busy.add(p.subscription);
        const run = this.attempt(p).catch((err) => this.log.error({ err, delivery: p.id }, 'webhook delivery failed unexpectedly')).finally(() => {
          this.inFlight.delete(key);
          this.schedule();
        });
        this.inFlight.set(key, run);
      } else next = Math.min(next, Math.max(p.dueAt, now + 10));
    }
    if (next !== Infinity) {
      this.timer = setTimeout(() => this.schedule(), Math.min(next - now, 2 ** 31 - 1));
      this.timer.unref();
    }
  }

  private async attempt(p: Pending): Promise<void> {
    const subscription = this.list().find((s) => s.id === p.subscription);
    const attempt = p.attempts + 1;
    if (subscription === undefined || subscription.disabled !== null) {
      const why = subscription === undefined ? 'the subscription was deleted' : 'the subscription is disabled';
      if (subscription === undefined) await this.queue.forget(p.subscription);
      else await this.queue.record(p, this.logged(p, attempt, { status: null, ok: false, ms: 0, error: why }, 'dropped'), null);
      return;
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': p.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': sign(subscription.secret, p.id, timestamp, p.body) };
    const result = await send(subscription.url, headers, p.body, this.allow, this.config.timeoutSeconds * 1000);
    if (result.ok) {
      await this.queue.record(p, this.logged(p, attempt, result, 'delivered'), null);
      return;
    }
    const delay = Math.min(this.config.retryMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
    const dueAt = Date.now() + delay;
    if (dueAt - p.queuedAt > this.config.retryWindowSeconds * 1000) {
      const reason = `delivery ${p.id} (${p.type}) failed ${attempt} time(s) over ${Math.round((Date.now() - p.queuedAt) / 1000)} s, the last one: ${result.error}`;
      // Disabled first: a crash between the two sends the delivery once more, and never leaves it given up unsaid.
      await this.subscriptions.disable(subscription.id, reason, this.now().toISOString());
      await this.queue.record(p, this.logged(p, attempt, result, 'given_up'), null);
      this.log.warn({ subscription: subscription.id, url: subscription.url, reason }, 'webhook subscription disabled');
      return;
    }
    await this.queue.record(p, { ...this.logged(p, attempt, result, 'retry'), retryAt: new Date(dueAt).toISOString() }, { ...p, attempts: attempt, dueAt });
  }

  private logged(p: Pending, attempt: number, r: { status: number | null; ok: boolean; ms: number; error: string | null }, outcome: LoggedAttempt['outcome']): LoggedAttempt {
    return { id: p.id, type: p.type, attempt, at: this.now().toISOString(), status: r.status, ok: r.ok, ms: r.ms, error: r.error, outcome };
  }
}
