import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.ts';
import { endpoint } from '../http/api.ts';
import { presentVersion } from '../presenters/versions.ts';
import { presentRequest } from '../presenters/publish-requests.ts';
import type { Deps } from '../deps.ts';

const TAG = 'Publishing through pull requests';
const AUTH_ERRORS = { 401: { description: 'No or invalid credential', schema: 'Error' }, 403: { description: 'The key lacks help:write', schema: 'Error' } };

/** Checks GitHub's `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the webhook secret). */
export function validSignature(secret: string, raw: string, header: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Working copies, publish requests and GitHub's webhook. */
export function publishingRoutes({ publisher, config, clock }: Deps) {
  return [
    endpoint({
      method: 'post',
      path: '/versions/:version/working-copy',
      operationId: 'createWorkingCopy',
      summary: 'Create (or return) the hidden working copy of a published version',
      description: 'The copy is a hidden draft `{version}-wip` with `workingCopyOf` set; it is edited directly, then published with a publish request.',
      tag: TAG,
      access: 'write',
      responses: {
        200: { description: 'The existing copy (`existed: true`)', schema: 'WorkingCopyResult' },
        201: { description: 'A new copy (`existed: false`)', schema: 'WorkingCopyResult' },
        ...AUTH_ERRORS,
        404: { description: 'Unknown version', schema: 'Error' },
        409: { description: '`publishing_disabled`, or `invalid_state` when the version is not published', schema: 'Error' },
      },
      handle: async ({ actor, params }) => {
        const { state, existed } = await publisher.createWorkingCopy(params.version, actor!);
        return { status: existed ? 200 : 201, body: { version: presentVersion(state), existed } };
      },
    }),
    endpoint({
      method: 'delete',
      path: '/versions/:version/working-copy',
      operationId: 'discardWorkingCopy',
      summary: 'Discard a working copy (by the original\'s slug or its own)',
      tag: TAG,
      access: 'write',
      responses: {
        200: { description: 'Discarded', schema: 'DiscardResult' },
        ...AUTH_ERRORS,
        404: { description: 'No working copy', schema: 'Error' },
        409: { description: '`request_open`: a publish request for it is open', schema: 'Error' },
      },
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
      responses: {
        200: { description: 'Dry run', schema: 'PublishDryRun' },
        201: { description: 'The request, with its pull request', schema: 'PublishRequestEnvelope' },
        400: { description: '`invalid_content` with every problem', schema: 'Error' },
        ...AUTH_ERRORS,
        404: { description: 'Unknown version', schema: 'Error' },
        409: { description: '`request_open`, `publishing_disabled`, or `invalid_state` (not a draft)', schema: 'Error' },
        502: { description: '`upstream_failed`: GitHub refused; the request is recorded as failed', schema: 'Error' },
      },
      handle: async ({ actor, params, query }) => {
        if (query.dryRun === 'true') {
          const p = publisher.prepare(params.version);
          return { body: { dryRun: true, targetSlug: p.targetSlug, summary: p.summary, warnings: p.warnings, files: p.files } };
        }
        const request = await publisher.request(params.version, actor!);
        return { status: 201, body: { dryRun: false, request: presentRequest(request) } };
      },
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
      responses: { 200: { description: 'The requests', schema: 'PublishRequestList' }, ...AUTH_ERRORS },
      handle: async ({ query }) => ({ body: { requests: (await publisher.list(query.target)).map(presentRequest) } }),
    }),
    endpoint({
      method: 'delete',
      path: '/publish-requests/:id',
      operationId: 'cancelPublishRequest',
      summary: 'Cancel an open publish request: close the pull request, delete the branch',
      tag: TAG,
      access: 'write',
      params: { id: 'RequestId' },
      responses: {
        200: { description: 'The request, now closed', schema: 'PublishRequestEnvelope' },
        ...AUTH_ERRORS,
        404: { description: 'Unknown request', schema: 'Error' },
        409: { description: '`request_not_open`', schema: 'Error' },
        502: { description: '`upstream_failed`', schema: 'Error' },
      },
      handle: async ({ params }) => ({ body: { request: presentRequest(await publisher.cancel(params.id)) } }),
    }),
    endpoint<{ action?: string; pull_request?: { number: number; merged?: boolean; merged_at?: string | null; closed_at?: string | null } }>({
      method: 'post',
      path: '/webhooks/github',
      operationId: 'githubWebhook',
      summary: "GitHub's webhook: learns when a publish request's pull request is merged or closed",
      description:
        'Configure it on the content repository for "Pull requests" events, content type application/json, with the secret in HELP_GITHUB_WEBHOOK_SECRET. Deliveries are verified with `X-Hub-Signature-256`.',
      tag: TAG,
      access: 'public',
      body: 'GitHubWebhook',
      rawBody: true,
      responses: {
        200: { description: 'Handled (or ignored, with the reason)', schema: 'WebhookResult' },
        401: { description: '`invalid_signature`', schema: 'Error' },
        409: { description: '`publishing_disabled`: no webhook secret configured', schema: 'Error' },
      },
      handle: async ({ ctx, body }) => {
        const secret = config.publishing?.webhookSecret;
        if (!secret) throw new AppError('publishing_disabled', 'No webhook secret is configured (HELP_GITHUB_WEBHOOK_SECRET)');
        if (!validSignature(secret, ctx.state.rawBody as string, ctx.get('x-hub-signature-256'))) {
          throw new AppError('invalid_signature', 'X-Hub-Signature-256 is missing or does not match the configured secret');
        }
        const event = ctx.get('x-github-event');
        if (event === 'ping') return { body: { ok: true, handled: 'ping' } };
        const pr = body.pull_request;
        if (event !== 'pull_request' || body.action !== 'closed' || !pr) return { body: { ok: true, handled: null, ignored: `${event} ${body.action ?? ''}`.trim() } };
        const merged = pr.merged === true;
        const request = await publisher.pullRequestClosed(pr.number, merged, (merged ? pr.merged_at : pr.closed_at) ?? clock.time());
        return { body: { ok: true, handled: request ? `request ${request.id} ${request.status}` : null } };
      },
    }),
  ];
}
