import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { AppError } from '../errors.ts';
import { endpoint } from '../http/api.ts';
import { presentVersion } from '../presenters/versions.ts';
import { presentRequest } from '../presenters/publish-requests.ts';
import type { Deps } from '../deps.ts';
import type { Publisher } from '../publishing/publisher.ts';
import { DeliveryLog } from '../publishing/deliveries.ts';
import { requestLog } from '../http/logging.ts';
import type { Clock } from '../clock.ts';
import type { Author } from '../store/writer.ts';

const TAG = 'Publishing through pull requests';

/** Checks GitHub's `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the webhook secret). */
export function validSignature(secret: string, raw: string, header: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Creates (or finds) a version's working copy, as the API answers it (201 when new), for the route and the tool server alike. */
export async function openWorkingCopy(publisher: Publisher, author: Author, version: string) {
  const { state, existed } = await publisher.createWorkingCopy(version, author);
  return { status: existed ? 200 : 201, body: { version: presentVersion(state), existed } };
}

/** Opens a publish request (201), or with `dryRun` says what it would commit (200), for the route and the tool server alike. */
export async function requestPublication(publisher: Publisher, author: Author, version: string, dryRun: boolean) {
  if (dryRun) {
    const p = publisher.prepare(version);
    return { status: 200, body: { dryRun: true, targetSlug: p.targetSlug, summary: p.summary, warnings: p.warnings, files: p.files } };
  }
  const request = await publisher.request(version, author);
  return { status: 201, body: { dryRun: false, request: presentRequest(request) } };
}

/** Publish requests, newest first (for one target version when given), for the route and the tool server alike. */
export const listRequests = async (publisher: Publisher, target?: string) => ({ requests: (await publisher.list(target)).map(presentRequest) });

/** Cancels an open publish request, for the route and the tool server alike. */
export const cancelRequest = async (publisher: Publisher, id: string) => ({ request: presentRequest(await publisher.cancel(id)) });

/** Working copies, publish requests and GitHub's webhook. */
export function publishingRoutes({ publisher, config, clock }: Deps) {
  let deliveries: DeliveryLog | undefined;
  return [
    endpoint({
      method: 'post',
      path: '/versions/:version/working-copy',
      operationId: 'createWorkingCopy',
      summary: 'Create (or return) the hidden working copy of a published version',
      description: 'The copy is a hidden draft `{version}-wip` with `workingCopyOf` set; it is edited directly, then published with a publish request.',
      tag: TAG,
      access: 'write',
      errors: ['not_found', 'publishing_disabled', 'invalid_state'],
      responses: { 200: { description: 'The existing copy (`existed: true`)', schema: 'WorkingCopyResult' }, 201: { description: 'A new copy (`existed: false`)', schema: 'WorkingCopyResult' } },
      handle: ({ actor, params }) => openWorkingCopy(publisher, actor!, params.version),
    }),
    endpoint({
      method: 'delete',
      path: '/versions/:version/working-copy',
      operationId: 'discardWorkingCopy',
      summary: 'Discard a working copy (by the original\'s slug or its own)',
      tag: TAG,
      access: 'write',
      errors: ['not_found', 'request_open'],
      responses: { 200: { description: 'Discarded', schema: 'DiscardResult' } },
      handle: async ({ actor, params }) => ({ body: { ok: true, discarded: await publisher.discardWorkingCopy(params.version, actor!) } }),
    }),
    endpoint<unknown, { dryRun?: string }>({
      method: 'post',
      path: '/versions/:version/publish-request',
      operationId: 'createPublishRequest',
      summary: 'Open a pull request that publishes a draft or working copy',
      description:
        'The content is checked exactly as import-files checks it. `dryRun=true` answers the summary, warnings and files without touching GitHub. A real request commits the files on a branch `publish/{target}/{stamp}` and opens a pull request titled `Publish {target}`. One open request per target.',
      tag: TAG,
      access: 'write',
      query: 'DryRunQuery',
      errors: ['not_found', 'invalid_content', 'request_open', 'publishing_disabled', 'invalid_state', 'upstream_failed'],
      responses: { 200: { description: 'Dry run', schema: 'PublishDryRun' }, 201: { description: 'The request, with its pull request', schema: 'PublishRequestEnvelope' } },
      handle: ({ actor, params, query }) => requestPublication(publisher, actor!, params.version, query.dryRun === 'true'),
    }),
    endpoint<unknown, { target?: string }>({
      method: 'get',
      path: '/publish-requests',
      operationId: 'listPublishRequests',
      summary: 'Publish requests, newest first',
      description: 'Open requests whose state is older than 30 s are refreshed from GitHub first (at most 10 per call), so a merge shows up even without the webhook.',
      tag: TAG,
      access: 'write',
      query: 'PublishRequestsQuery',
      errors: [],
      responses: { 200: { description: 'The requests', schema: 'PublishRequestList' } },
      handle: async ({ query }) => ({ body: await listRequests(publisher, query.target) }),
    }),
    endpoint({
      method: 'delete',
      path: '/publish-requests/:id',
      operationId: 'cancelPublishRequest',
      summary: 'Cancel an open publish request: close the pull request, delete the branch',
      tag: TAG,
      access: 'write',
      params: { id: 'RequestId' },
      errors: ['not_found', 'request_not_open', 'publishing_disabled', 'upstream_failed'],
      responses: { 200: { description: 'The request, now closed', schema: 'PublishRequestEnvelope' } },
      handle: async ({ params }) => ({ body: await cancelRequest(publisher, params.id) }),
    }),
    endpoint<WebhookBody>({
      method: 'post',
      path: '/webhooks/github',
      operationId: 'githubWebhook',
      summary: "GitHub's webhook: learns when a publish request's pull request is merged or closed",
      description:
        'Configure it on the content repository for "Pull requests" events, content type application/json, with the secret in HELP_GITHUB_WEBHOOK_SECRET. Deliveries are verified with `X-Hub-Signature-256`. A delivery acted on in the last day (the same `X-GitHub-Delivery` id, or the same signed body) is not acted on again: it is answered 200 with `replayed: true`.',
      tag: TAG,
      access: 'public',
      body: 'GitHubWebhook',
      rawBody: true,
      errors: ['invalid_signature', 'publishing_disabled'],
      responses: { 200: { description: 'Handled (or ignored, with the reason)', schema: 'WebhookResult' } },
      verify: (ctx) => {
        const secret = config.publishing?.webhookSecret;
        if (!secret) throw new AppError('publishing_disabled', 'No webhook secret is configured (HELP_GITHUB_WEBHOOK_SECRET)');
        if (!validSignature(secret, ctx.state.rawBody as string, ctx.get('x-hub-signature-256'))) {
          throw new AppError('invalid_signature', 'X-Hub-Signature-256 is missing or does not match the configured secret');
        }
      },
      handle: async ({ ctx, body }) => {
        deliveries ??= openDeliveryLog(config.dataDir, clock, ctx);
        // GitHub always sends an id; a delivery without one is still known again by its signed body.
        const id = ctx.get('x-github-delivery') || undefined;
        const outcome = await deliveries.once(id, ctx.state.rawBody as string, () => act(ctx, body));
        // A replay is answered 2xx all the same: GitHub would mark an error failed, and a redelivery of it would be acted on.
        if (outcome.replayed) return { body: { ok: true, handled: null, replayed: true, ignored: `a delivery acted on already${id ? ` (${id})` : ''}` } };
        return { body: outcome.result };
      },
    }),
  ];

  async function act(ctx: Context, body: WebhookBody) {
    const event = ctx.get('x-github-event');
    if (event === 'ping') return { ok: true, handled: 'ping' };
    // A secret may serve several repositories (a webhook of the organization): only ours speaks of our pull requests.
    const ours = `${config.publishing!.owner}/${config.publishing!.repo}`;
    const from = body.repository?.full_name;
    if (typeof from !== 'string' || from.toLowerCase() !== ours.toLowerCase()) {
      return { ok: true, handled: null, ignored: `a delivery for ${from ?? 'no repository'}, not ${ours}` };
    }
    const pr = body.pull_request;
    if (event !== 'pull_request' || body.action !== 'closed' || !pr) return { ok: true, handled: null, ignored: `${event} ${body.action ?? ''}`.trim() };
    const merged = pr.merged === true;
    const request = await publisher.pullRequestClosed(pr.number, merged, (merged ? pr.merged_at : pr.closed_at) ?? clock.time());
    return { ok: true, handled: request ? `request ${request.id} ${request.status}` : null };
  }
}

type WebhookBody = { action?: string; repository?: { full_name?: string }; pull_request?: { number: number; merged?: boolean; merged_at?: string | null; closed_at?: string | null } };

/** The deliveries acted on in the last day (read on the first delivery: most deployments never get one). */
function openDeliveryLog(dataDir: string, clock: Clock, ctx: Context): DeliveryLog {
  const log = new DeliveryLog(dataDir, { now: () => Date.parse(clock.time()) });
  if (log.damaged !== null) requestLog(ctx).warn({ reason: log.damaged }, 'github-deliveries.json could not be read; it is started anew (a delivery of the last day sent again would be acted on again)');
  return log;
}
