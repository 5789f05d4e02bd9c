/** Schemas of working copies, publish requests and the GitHub webhook. */

const Slugs = { type: 'array', items: { $ref: 'NodeSlug' } } as const;

export const RequestId = { $id: 'RequestId', type: 'string', pattern: '^[0-9a-f-]{36}$', description: 'A publish request id.' } as const;

export const WorkingCopyResult = {
  $id: 'WorkingCopyResult',
  type: 'object',
  required: ['version', 'existed'],
  properties: { version: { $ref: 'Version' }, existed: { type: 'boolean' } },
} as const;

export const DiscardResult = {
  $id: 'DiscardResult',
  type: 'object',
  required: ['ok', 'discarded'],
  properties: { ok: { const: true }, discarded: { $ref: 'VersionSlug' } },
} as const;

const PublishSummary = {
  allOf: [
    { $ref: 'FilesSummary' },
    {
      type: 'object',
      required: ['languages'],
      properties: {
        languages: {
          type: 'object',
          description: 'Per language: the nodes whose translation is created, updated or deleted.',
          additionalProperties: { type: 'object', required: ['created', 'updated', 'deleted'], properties: { created: Slugs, updated: Slugs, deleted: Slugs } },
        },
      },
    },
  ],
} as const;

export const PublishRequest = {
  $id: 'PublishRequest',
  type: 'object',
  required: ['id', 'targetSlug', 'sourceSlug', 'prNumber', 'prUrl', 'branch', 'status', 'summary', 'counts', 'author', 'createdAt', 'updatedAt', 'mergedAt', 'closedAt', 'importedAt', 'failure'],
  properties: {
    id: { $ref: 'RequestId' },
    targetSlug: { $ref: 'VersionSlug', description: 'The version the pull request publishes.' },
    sourceSlug: { $ref: 'VersionSlug', description: 'The draft or working copy the content came from.' },
    prNumber: { type: ['integer', 'null'] },
    prUrl: { type: ['string', 'null'] },
    branch: { type: 'string' },
    status: { enum: ['opening', 'open', 'merged', 'closed', 'imported', 'failed'], description: '`opening`: recorded, pull request not confirmed yet.' },
    summary: PublishSummary,
    counts: {
      type: 'object',
      required: ['created', 'updated', 'deleted', 'unchanged', 'files'],
      properties: { created: { type: 'integer' }, updated: { type: 'integer' }, deleted: { type: 'integer' }, unchanged: { type: 'integer' }, files: { type: 'integer' } },
    },
    author: { type: 'string', description: 'The key that asked.' },
    createdAt: { $ref: 'Timestamp' },
    updatedAt: { $ref: 'Timestamp' },
    mergedAt: { type: ['string', 'null'] },
    closedAt: { type: ['string', 'null'] },
    importedAt: { type: ['string', 'null'] },
    failure: { type: ['string', 'null'], description: 'Why the repository host refused, for `failed` requests.' },
  },
} as const;

export const PublishRequestEnvelope = {
  $id: 'PublishRequestEnvelope',
  type: 'object',
  required: ['request'],
  properties: { dryRun: { const: false }, request: { $ref: 'PublishRequest' } },
} as const;

export const PublishRequestList = {
  $id: 'PublishRequestList',
  type: 'object',
  required: ['requests'],
  properties: { requests: { type: 'array', items: { $ref: 'PublishRequest' } } },
} as const;

export const PublishDryRun = {
  $id: 'PublishDryRun',
  type: 'object',
  required: ['dryRun', 'targetSlug', 'summary', 'warnings', 'files'],
  properties: {
    dryRun: { const: true },
    targetSlug: { $ref: 'VersionSlug' },
    summary: PublishSummary,
    warnings: { type: 'array', items: { $ref: 'ContentProblem' } },
    files: { type: 'array', items: { $ref: 'ContentFile' }, description: 'The files the pull request would commit, with their repository paths.' },
  },
} as const;

export const PublishRequestsQuery = {
  $id: 'PublishRequestsQuery',
  type: 'object',
  properties: { target: { $ref: 'VersionSlug', description: 'Only requests for this target version.' } },
} as const;

export const GitHubWebhook = {
  $id: 'GitHubWebhook',
  type: 'object',
  description: 'A GitHub webhook delivery; `pull_request` events with action `closed` are acted on.',
  properties: {
    action: { type: 'string' },
    repository: { type: 'object', properties: { full_name: { type: 'string', description: 'owner/name; deliveries for another repository than HELP_GITHUB_REPO are ignored.' } } },
    pull_request: { type: 'object', required: ['number'], properties: { number: { type: 'integer' }, merged: { type: ['boolean', 'null'] }, merged_at: { type: ['string', 'null'] }, closed_at: { type: ['string', 'null'] } } },
  },
} as const;

export const WebhookResult = {
  $id: 'WebhookResult',
  type: 'object',
  required: ['ok'],
  properties: {
    ok: { const: true },
    handled: { type: ['string', 'null'] },
    ignored: { type: 'string' },
    replayed: { const: true, description: 'The delivery (its `X-GitHub-Delivery` id, or its signed body) was acted on in the last day; it is not acted on again.' },
  },
} as const;

export const publishingSchemas = [RequestId, WorkingCopyResult, DiscardResult, PublishRequest, PublishRequestEnvelope, PublishRequestList, PublishDryRun, PublishRequestsQuery, GitHubWebhook, WebhookResult];
