import { AppError, invalid } from '../errors.ts';
import { endpoint } from '../http/api.ts';
import type { Actor } from '../http/actor.ts';
import type { Deps } from '../deps.ts';
import { urlProblem } from '../webhooks/addresses.ts';
import type { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import { presentSubscription, type NewSubscription } from '../webhooks/subscriptions.ts';

const TAG = 'Webhooks';

/** Subscriptions send content to any URL their maker names: for keys with help:write, and of the accounts signed in through OAuth, administrators only. */
function requireManager(actor: Actor): void {
  if (actor.kind === 'oauth' && actor.role !== 'admin') {
    throw new AppError('insufficient_scope', `Account "${actor.account}" is ${actor.role === 'editor' ? 'an editor' : 'a viewer'}: webhooks are managed by administrators (or with an API key that has help:write)`, { required: 'admin', role: actor.role });
  }
}

const unknownWebhook = (id: string) => new AppError('not_found', `No webhook subscription ${id}`, { resource: 'webhook', id });

/** Adds a subscription (the URL checked as written; where it resolves is checked at each delivery); the secret is in this answer only. */
export async function subscribe(webhooks: WebhookDispatcher, input: NewSubscription, createdBy: string, now: string) {
  const problem = urlProblem(input.url, webhooks.allow);
  if (problem !== null) throw invalid('body/url', problem);
  const s = await webhooks.subscriptions.create(input, createdBy, now);
  return { webhook: presentSubscription(s), secret: s.secret };
}

/** Webhook subscriptions and their delivery logs. */
export function webhookRoutes({ webhooks, clock }: Deps) {
  const find = (id: string) => webhooks.list().find((s) => s.id === id) ?? null;
  return [
    endpoint<NewSubscription>({
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhook',
      summary: 'Subscribe a URL to events (the signing secret is shown once)',
      description:
        'Deliveries are signed POSTs following the Standard Webhooks conventions (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried with exponential backoff for a day; see docs/webhooks.md for the events, their payloads and how to verify a signature. Keys with help:write; of OAuth accounts, administrators.',
      tag: TAG,
      access: 'write',
      body: 'WebhookCreate',
      errors: [],
      responses: { 201: { description: 'The subscription and its secret', schema: 'WebhookCreated' } },
      handle: async ({ actor, body }) => {
        requireManager(actor!);
        return { status: 201, body: await subscribe(webhooks, body, actor!.name, clock.stamp()) };
      },
    }),
    endpoint({
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhooks',
      summary: 'List webhook subscriptions (without their secrets)',
      tag: TAG,
      access: 'write',
      errors: [],
      responses: { 200: { description: 'Every subscription, oldest first', schema: 'WebhookList' } },
      handle: ({ actor }) => {
        requireManager(actor!);
        return { body: { webhooks: webhooks.list().map(presentSubscription) } };
      },
    }),
    endpoint({
      method: 'delete',
      path: '/webhooks/:id',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook subscription and its queued deliveries',
      tag: TAG,
      access: 'write',
      params: { id: 'WebhookId' },
      errors: ['not_found'],
      responses: { 200: { description: 'Deleted', schema: 'WebhookDeleted' } },
      handle: async ({ actor, params }) => {
        requireManager(actor!);
        if (!(await webhooks.subscriptions.remove(params.id))) throw unknownWebhook(params.id);
        await webhooks.queue.forget(params.id);
        return { body: { ok: true, deleted: params.id } };
      },
    }),
    endpoint({
      method: 'get',
      path: '/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: "A subscription's delivery log: each attempt with its status code and timing",
      tag: TAG,
      access: 'write',
      params: { id: 'WebhookId' },
      errors: ['not_found'],
      responses: { 200: { description: 'The last 100 attempts, newest first, and how many deliveries wait', schema: 'WebhookDeliveries' } },
      handle: ({ actor, params }) => {
        requireManager(actor!);
        const s = find(params.id);
        if (s === null) throw unknownWebhook(params.id);
        const pending = webhooks.queue.pending().filter((p) => p.subscription === s.id).length;
        return { body: { webhook: presentSubscription(s), pending, deliveries: [...webhooks.queue.log(s.id)].reverse() } };
      },
    }),
  ];
}
