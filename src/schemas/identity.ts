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

export const identitySchemas = [Whoami, Health];
