export const Whoami = {
  $id: 'Whoami',
  type: 'object',
  required: ['kind', 'keyName', 'keyPrefix', 'createdAt', 'lastUsedAt', 'scopes', 'canWritePublished', 'publishViaPr'],
  properties: {
    kind: { enum: ['api_key'], description: 'How the caller signed in.' },
    keyName: { type: 'string' },
    keyPrefix: { type: 'string', description: 'The first characters of the key, to tell keys apart.' },
    createdAt: { $ref: 'Timestamp' },
    lastUsedAt: { oneOf: [{ $ref: 'Timestamp' }, { type: 'null' }] },
    scopes: { type: 'array', items: { enum: ['help:read', 'help:write'] } },
    canWritePublished: { type: 'boolean', description: 'A publisher key: may write published versions while they are locked.' },
    publishViaPr: { type: 'boolean', description: 'True while published versions change only through a merged pull request.' },
  },
} as const;

export const Health = { $id: 'Health', type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' }, head: { type: ['string', 'null'] } } } as const;

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
