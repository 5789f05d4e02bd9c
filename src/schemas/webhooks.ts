import { WEBHOOK_EVENTS } from '../webhooks/events.ts';

/** Schemas of webhook subscriptions and their delivery log. */

export const WebhookId = { $id: 'WebhookId', type: 'string', pattern: '^[0-9a-f-]{36}$', description: 'A webhook subscription id.' } as const;

const EventName = { enum: [...WEBHOOK_EVENTS], description: 'An event type (docs/webhooks.md describes each, with its payload).' } as const;

export const WebhookCreate = {
  $id: 'WebhookCreate',
  type: 'object',
  required: ['url', 'events'],
  additionalProperties: false,
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: 2000,
      description: 'Where deliveries are POSTed: an http or https URL, never a loopback, link-local or private address unless `HELP_WEBHOOK_ALLOW_HOSTS` names it.',
    },
    events: { type: 'array', items: EventName, minItems: 1, uniqueItems: true, description: 'The events to deliver.' },
    versions: { type: ['array', 'null'], items: { $ref: 'VersionSlug' }, maxItems: 100, uniqueItems: true, description: 'Only events of these versions; absent, null or empty: every version.' },
  },
} as const;

export const WebhookSubscription = {
  $id: 'WebhookSubscription',
  type: 'object',
  required: ['id', 'url', 'events', 'versions', 'createdAt', 'createdBy', 'enabled', 'disabledAt', 'disabledReason'],
  additionalProperties: false,
  properties: {
    id: { $ref: 'WebhookId' },
    url: { type: 'string' },
    events: { type: 'array', items: EventName },
    versions: { type: ['array', 'null'], items: { $ref: 'VersionSlug' }, description: 'Null: every version.' },
    createdAt: { type: 'string', format: 'date-time' },
    createdBy: { type: 'string', description: 'The key or account that made it, or `cli`.' },
    enabled: { type: 'boolean', description: 'False once deliveries kept failing past the retry window; delete it and subscribe again once the receiver is fixed.' },
    disabledAt: { type: ['string', 'null'], format: 'date-time' },
    disabledReason: { type: ['string', 'null'], description: 'Why it was disabled: the delivery given up and its last failure.' },
  },
} as const;

export const WebhookCreated = {
  $id: 'WebhookCreated',
  type: 'object',
  required: ['webhook', 'secret'],
  additionalProperties: false,
  properties: {
    webhook: { $ref: 'WebhookSubscription' },
    secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/=]+$', description: 'The signing secret, shown here once and never again.' },
  },
} as const;

export const WebhookList = {
  $id: 'WebhookList',
  type: 'object',
  required: ['webhooks'],
  additionalProperties: false,
  properties: { webhooks: { type: 'array', items: { $ref: 'WebhookSubscription' } } },
} as const;

export const WebhookDeleted = {
  $id: 'WebhookDeleted',
  type: 'object',
  required: ['ok', 'deleted'],
  additionalProperties: false,
  properties: { ok: { const: true }, deleted: { $ref: 'WebhookId' } },
} as const;

export const WebhookDeliveries = {
  $id: 'WebhookDeliveries',
  type: 'object',
  required: ['webhook', 'pending', 'deliveries'],
  additionalProperties: false,
  properties: {
    webhook: { $ref: 'WebhookSubscription' },
    pending: { type: 'integer', minimum: 0, description: 'Deliveries queued or waiting for a retry.' },
    deliveries: {
      type: 'array',
      description: 'The last 100 attempts, newest first.',
      items: {
        type: 'object',
        required: ['id', 'type', 'attempt', 'at', 'status', 'ok', 'ms', 'error', 'outcome'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', description: 'The `webhook-id`: the same on every attempt of one delivery.' },
          type: EventName,
          attempt: { type: 'integer', minimum: 1 },
          at: { type: 'string', format: 'date-time' },
          status: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when no answer came (refused target, connection error, timeout)." },
          ok: { type: 'boolean' },
          ms: { type: 'integer', minimum: 0, description: 'How long the attempt took.' },
          error: { type: ['string', 'null'] },
          outcome: { enum: ['delivered', 'retry', 'given_up', 'dropped'], description: '`retry`: sent again at `retryAt`; `given_up`: the retry window closed (the subscription is disabled); `dropped`: the subscription was disabled meanwhile.' },
          retryAt: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
} as const;

export const webhookSchemas = [WebhookId, WebhookCreate, WebhookSubscription, WebhookCreated, WebhookList, WebhookDeleted, WebhookDeliveries];
