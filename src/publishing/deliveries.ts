import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../auth/json-file.ts';

/** One webhook delivery acted on: GitHub's id for it (when it sent a usable one), the digest of its signed body, and when. */
interface Delivery {
  id: string | null;
  digest: string;
  at: number;
}

export interface DeliveryLogOptions {
  /** How long a delivery is remembered, in ms (a day). */
  keepMs?: number;
  /** Deliveries remembered at most; beyond, the oldest are forgotten first (10,000: about 1.5 MB on disk). */
  max?: number;
  /** The time, in ms (the service's clock). */
  now?: () => number;
}

export type Outcome<T> = { replayed: true } | { replayed: false; result: T };

export const DAY_MS = 24 * 60 * 60 * 1000;

/** GitHub's delivery ids are GUIDs; anything else is no id to remember (the body's digest still is). */
const DELIVERY_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * The webhook deliveries acted on in the last day, kept in `github-deliveries.json` in the data
 * directory so that a restart remembers them. A signature covers the body only, so a delivery
 * recorded on its way (a proxy's log, a misdirected redelivery) could otherwise be sent again, and
 * acted on again, at any time. A delivery is a replay when its `X-GitHub-Delivery` id or its body
 * was seen: the id is not signed, and a replay under a fresh id carries the same signed body. Two
 * deliveries GitHub means to be distinct differ in their bodies (each event says what changed, and when).
 */
export class DeliveryLog {
  private readonly path: string;
  private readonly keepMs: number;
  private readonly max: number;
  private readonly now: () => number;
  /** Oldest first. */
  private deliveries: Delivery[];
  /** Ids and digests of deliveries being acted on: a copy sent meanwhile is a replay too. */
  private readonly inFlight = new Set<string>();
  /** Why the file could not be read at start (it is then replaced), or null. */
  readonly damaged: string | null = null;

  constructor(dataDir: string, options: DeliveryLogOptions = {}) {
    this.path = join(dataDir, 'github-deliveries.json');
    this.keepMs = options.keepMs ?? DAY_MS;
    this.max = options.max ?? 10_000;
    this.now = options.now ?? Date.now;
    let stored: Delivery[] = [];
    try {
      if (fs.existsSync(this.path)) stored = parse(fs.readFileSync(this.path, 'utf8'));
    } catch (err) {
      // Forgetting a day of deliveries only lets a replay of one of them through: not worth a failed start.
      this.damaged = (err as Error).message;
    }
    this.deliveries = stored.sort((a, b) => a.at - b.at);
  }

  /**
   * Runs `act` for a delivery not seen yet and remembers it once `act` succeeded (one that failed
   * may be redelivered); a replay is not acted on.
   */
  async once<T>(id: string | undefined, body: string, act: () => Promise<T>): Promise<Outcome<T>> {
    this.forgetOld();
    const delivery: Delivery = { id: id !== undefined && DELIVERY_ID.test(id) ? id : null, digest: createHash('sha256').update(body).digest('hex'), at: this.now() };
    const keys = [delivery.digest, ...(delivery.id === null ? [] : [`id:${delivery.id}`])];
    if (keys.some((k) => this.inFlight.has(k)) || this.deliveries.some((d) => d.digest === delivery.digest || (delivery.id !== null && d.id === delivery.id))) return { replayed: true };
    for (const k of keys) this.inFlight.add(k);
    try {
      const result = await act();
      this.remember(delivery);
      return { replayed: false, result };
    } finally {
      for (const k of keys) this.inFlight.delete(k);
    }
  }

  /** How many deliveries are remembered now. */
  get size(): number {
    this.forgetOld();
    return this.deliveries.length;
  }

  private forgetOld(): void {
    const since = this.now() - this.keepMs;
    const first = this.deliveries.findIndex((d) => d.at > since);
    if (first !== 0) this.deliveries = first < 0 ? [] : this.deliveries.slice(first);
  }

  private remember(delivery: Delivery): void {
    this.deliveries.push(delivery);
    if (this.deliveries.length > this.max) this.deliveries = this.deliveries.slice(this.deliveries.length - this.max);
    const lines = this.deliveries.map((d) => JSON.stringify({ id: d.id, digest: d.digest, at: new Date(d.at).toISOString() }));
    writeAtomic(this.path, `{ "deliveries": [\n${lines.join(',\n')}\n] }\n`);
  }
}

function parse(text: string): Delivery[] {
  const value = JSON.parse(text) as { deliveries?: unknown };
  if (!Array.isArray(value.deliveries)) throw new Error('no "deliveries" list');
  return value.deliveries.flatMap((d: { id?: unknown; digest?: unknown; at?: unknown }) => {
    const at = typeof d.at === 'string' ? Date.parse(d.at) : NaN;
    if (typeof d.digest !== 'string' || !Number.isFinite(at)) return [];
    return [{ id: typeof d.id === 'string' ? d.id : null, digest: d.digest, at }];
  });
}
