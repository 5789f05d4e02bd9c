const COMMON = {
  scopes: { type: 'array', items: { enum: ['help:read', 'help:write'] } },
  canWritePublished: { type: 'boolean', description: 'May write published versions while they are locked: a publisher key, or an admin\'s OAuth token when HELP_OAUTH_ADMIN_PUBLISHES is on.' },
  publishViaPr: { type: 'boolean', description: 'True while published versions change only through a merged pull request.' },
} as const;

/** whoami: an API key, or an OAuth access token (told apart by `kind`). */
export const Whoami = {
  $id: 'Whoami',
  oneOf: [
    {
      type: 'object',
      description: 'An API key.',
      required: ['kind', 'keyName', 'keyPrefix', 'createdAt', 'lastUsedAt', 'scopes', 'canWritePublished', 'publishViaPr'],
      additionalProperties: false,
      properties: {
        kind: { const: 'api_key', description: 'How the caller signed in.' },
        keyName: { type: 'string' },
        keyPrefix: { type: 'string', description: 'The first characters of the key, to tell keys apart.' },
        createdAt: { $ref: 'Timestamp' },
        lastUsedAt: { oneOf: [{ $ref: 'Timestamp' }, { type: 'null' }] },
        ...COMMON,
      },
    },
    {
      type: 'object',
      description: 'An OAuth access token, issued to a client on an account\'s consent.',
      required: ['kind', 'keyName', 'keyPrefix', 'createdAt', 'lastUsedAt', 'accountName', 'role', 'clientId', 'clientName', 'audience', 'expiresAt', 'scopes', 'canWritePublished', 'publishViaPr'],
      additionalProperties: false,
      properties: {
        kind: { const: 'oauth', description: 'How the caller signed in.' },
        keyName: { type: 'null', description: 'Null: not a key.' },
        keyPrefix: { type: 'null', description: 'Null: not a key.' },
        createdAt: { $ref: 'Timestamp', description: 'When the token was issued.' },
        lastUsedAt: { type: 'null', description: 'Null: tokens are short-lived and not tracked.' },
        accountName: { type: 'string', description: 'The account that gave its consent.' },
        role: { enum: ['admin', 'editor', 'viewer'] },
        clientId: { type: 'string' },
        clientName: { type: ['string', 'null'], description: 'The name the client registered with.' },
        audience: { type: 'string', description: 'The resource the token is for: the API or the tool endpoint.' },
        expiresAt: { $ref: 'Timestamp' },
        ...COMMON,
      },
    },
  ],
} as const;

export const Health = {
  $id: 'Health',
  type: 'object',
  required: ['ok'],
  properties: {
    ok: { type: 'boolean', description: 'True once every version is loaded (and the status is 200; 503 before).' },
    head: { type: ['string', 'null'], description: 'The commit main points at (with a credential only: it moves with every write, drafts\' too).' },
    replication: {
      type: 'object',
      description: 'Replication (docs/replicas.md): `role` (`primary` or `replica`) and `revision`, the commit served; on a replica also `lagSeconds` (0 while in step with the primary and in contact with it; else how long it may have been behind), `lastContact` (when the primary last answered), and with a credential `primary`, `primaryRevision` and `problem` (why following fails, while it does).',
      properties: {
        role: { enum: ['primary', 'replica'] },
        revision: { type: ['string', 'null'] },
        lagSeconds: { type: 'number' },
        lastContact: { type: ['string', 'null'] },
        primary: { type: 'string' },
        primaryRevision: { type: ['string', 'null'] },
        problem: { type: ['string', 'null'] },
      },
    },
    versions: {
      type: 'object',
      description: 'How many versions are served, still loading, and cannot be served; and how many of those served are still being indexed for search.',
      properties: { loaded: { type: 'integer' }, loading: { type: 'integer' }, broken: { type: 'integer' }, indexing: { type: 'integer' } },
    },
    loading: { type: 'array', items: { type: 'string' }, description: 'The versions still loading (their reads answer 503 version_loading); with a credential only, as the lists below.' },
    indexing: {
      type: 'array',
      items: { type: 'string' },
      description: 'Versions served whose search indexes are still being built after the start (a start without snapshots): their searches wait for them, up to 2 s, then answer 503 version_loading. With a credential only; `versions.indexing` counts them for anyone.',
    },
    broken: { type: 'array', items: { type: 'string' }, description: 'The versions whose stored data cannot be read (with a credential only: they may be drafts).' },
    problem: { type: 'string', description: 'Why `ok` is false although every version was read: each one is broken, so nothing can be served (status 503).' },
  },
} as const;

/** The answer of `GET /help/v1`: where everything is. */
export const ApiIndex = {
  $id: 'ApiIndex',
  type: 'object',
  required: ['name', 'apiVersion', 'links'],
  properties: {
    name: { type: 'string' },
    apiVersion: { type: 'string', description: 'The version of this interface description.' },
    links: {
      type: 'object',
      required: ['docs', 'openapi', 'healthz', 'metrics'],
      properties: {
        docs: { type: 'string', description: 'The interactive reference page.' },
        openapi: { type: 'string', description: 'The OpenAPI document.' },
        healthz: { type: 'string', description: '200 once the content is loaded.' },
        metrics: { type: 'string', description: 'Prometheus metrics.' },
      },
    },
  },
} as const;

export const identitySchemas = [Whoami, Health, ApiIndex];
