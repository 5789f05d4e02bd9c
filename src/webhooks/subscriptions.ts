import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { LockedJsonFile } from '../auth/json-file.ts';
import { WEBHOOK_EVENTS, type WebhookEventType } from './events.ts';
import { newSecret } from './signature.ts';

/** A subscription as stored in `webhooks.json`. The secret is kept as is: every delivery is signed with it. */
export interface Subscription {
  id: string;
  url: string;
  events: WebhookEventType[];
  /** Only events of these versions; null: every version. */
  versions: string[] | null;
  secret: string;
  createdAt: string;
  /** The key's or account's name that made it (or `cli`). */
  createdBy: string;
  /** Set when deliveries kept failing: when, and why. Deliveries stop until the subscription is made anew. */
  disabled: { at: string; reason: string } | null;
}

export interface NewSubscription {
  url: string;
  events: readonly string[];
  versions?: readonly string[] | null;
}

const isSubscription = (r: unknown): boolean => {
  const s = r as Partial<Record<keyof Subscription, unknown>> | null;
  return typeof s === 'object' && s !== null && typeof s.id === 'string' && typeof s.url === 'string' && typeof s.secret === 'string' && Array.isArray(s.events);
};

/**
 * `webhooks.json` in the data directory: the subscriptions, changed by the API and the CLI (while
 * the server runs) under the file's lock, and replaced atomically and durably.
 */
export class SubscriptionFile extends LockedJsonFile<Subscription> {
  constructor(dataDir: string) {
    super(join(dataDir, 'webhooks.json'), 'webhooks', isSubscription, 'a webhook subscription');
  }

  /** Adds a subscription; its secret is in the answer here and never again. */
  async create(input: NewSubscription, createdBy: string, now: string): Promise<Subscription> {
    const record: Subscription = {
      id: randomUUID(),
      url: input.url,
      events: WEBHOOK_EVENTS.filter((e) => input.events.includes(e)),
      versions: input.versions && input.versions.length > 0 ? [...new Set(input.versions)] : null,
      secret: newSecret(),
      createdAt: now,
      createdBy,
      disabled: null,
    };
    await this.update((all) => ({ records: [...all, record], result: undefined }));
    return record;
  }

  /** Removes a subscription; false when there is none with that id. */
  remove(id: string): Promise<boolean> {
    return this.update((all) => {
      const left = all.filter((s) => s.id !== id);
      return { records: left, result: left.length !== all.length };
    });
  }

  /** Marks a subscription disabled, saying why (nothing when it is gone or disabled already). */
  disable(id: string, reason: string, now: string): Promise<void> {
    return this.update((all) => ({ records: all.map((s) => (s.id === id && s.disabled === null ? { ...s, disabled: { at: now, reason } } : s)), result: undefined }));
  }
}

/** A subscription as the API and the CLI show it: everything but the secret. */
export function presentSubscription(s: Subscription) {
  return { id: s.id, url: s.url, events: s.events, versions: s.versions, createdAt: s.createdAt, createdBy: s.createdBy, enabled: s.disabled === null, disabledAt: s.disabled?.at ?? null, disabledReason: s.disabled?.reason ?? null };
}

/** Whether a subscription wants an event of this type about this version. */
export const wants = (s: Subscription, type: WebhookEventType, version: string) => s.disabled === null && s.events.includes(type) && (s.versions === null || s.versions.includes(version));
