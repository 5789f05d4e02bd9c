import type { OperationExamples } from './examples.ts';
import { KEYS, STAMPS } from './story.ts';

/** The examples of the webhook operations (merged into EXAMPLES; see examples.ts for the rules). */

/** The subscription the examples show; a real run's id stands in for it. */
export const WEBHOOK_ID = '3f1c7a52-9b64-4e0d-8a21-5c7e0b9d4f18';
const UNKNOWN_WEBHOOK = '00000000-0000-4000-8000-000000000000';
const REQUEST_ID = '7d2c9e41-5a8b-4f30-b6e2-00000000002a';
const error = (code: string, message: string, details: Record<string, unknown> = {}) => ({ error: { code, message, ...details, requestId: REQUEST_ID } });

const SUBSCRIBE = { url: 'https://hooks.tasklane.example/help-changed', events: ['version.published', 'node.created', 'translation.updated'], versions: ['v2'] };

const subscription = {
  id: WEBHOOK_ID,
  url: SUBSCRIBE.url,
  events: SUBSCRIBE.events,
  versions: SUBSCRIBE.versions,
  createdAt: STAMPS.now,
  createdBy: KEYS.writer.name,
  enabled: true,
  disabledAt: null,
  disabledReason: null,
};

const READ_ONLY = { readOnlyKey: { summary: 'A key without help:write', sent: { as: 'reader' as const }, value: error('insufficient_scope', `Key "${KEYS.reader.name}" lacks the scope help:write that this endpoint needs`, { required: 'help:write', scopes: ['help:read'] }) } };
const UNKNOWN = { unknown: { summary: 'An unknown subscription', sent: { path: { id: UNKNOWN_WEBHOOK } }, value: error('not_found', `No webhook subscription ${UNKNOWN_WEBHOOK}`, { resource: 'webhook', id: UNKNOWN_WEBHOOK }) } };
const refused = 'is refused: 10.20.0.5 is a private or reserved address, which HELP_WEBHOOK_ALLOW_HOSTS does not name';

export const WEBHOOK_EXAMPLES: Record<string, OperationExamples> = {
  createWebhook: {
    requests: {
      subscribe: { summary: 'A chat bot hears of new topics and translations in v2', value: SUBSCRIBE },
      privateAddress: { summary: 'A private address', value: { url: 'http://10.20.0.5/hooks', events: ['node.created'] } },
    },
    responses: {
      201: { created: { summary: 'The subscription, and its secret (shown this once)', value: { webhook: subscription, secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD' } } },
      400: { privateAddress: { summary: 'A private address the allow-list does not name', sent: { body: 'privateAddress' }, value: error('validation_failed', `body/url ${refused}`, { field: 'body/url', errors: [{ field: 'body/url', message: refused }] }) } },
      403: READ_ONLY,
    },
  },
  listWebhooks: {
    responses: {
      200: { one: { summary: 'One subscription (never its secret)', value: { webhooks: [subscription] } } },
      403: READ_ONLY,
    },
  },
  deleteWebhook: {
    parameters: { id: WEBHOOK_ID },
    responses: {
      200: { deleted: { summary: 'Deleted, with what was queued for it', value: { ok: true, deleted: WEBHOOK_ID } } },
      404: UNKNOWN,
    },
  },
  listWebhookDeliveries: {
    parameters: { id: WEBHOOK_ID },
    responses: {
      200: { none: { summary: 'A new subscription: nothing sent yet', value: { webhook: subscription, pending: 0, deliveries: [] } } },
      404: UNKNOWN,
    },
  },
};
