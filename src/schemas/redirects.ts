/** Schemas of old addresses: a redirect as documents carry it, and the 301 answer of a read of an old slug. */

/** A renamed node's old slug and its slug now (one hop). */
export const Redirect = {
  $id: 'Redirect',
  type: 'object',
  required: ['from', 'to'],
  additionalProperties: false,
  properties: {
    from: { $ref: 'NodeSlug', description: 'The old slug: no node of the version has it (a node that has it wins, and the redirect is dropped).' },
    to: { $ref: 'NodeSlug', description: 'The node it now is: a node of the version (or another old slug, followed to its node).' },
  },
} as const;

/** The body of a 301: where the node is now. `Location` says the same. */
export const Moved = {
  $id: 'Moved',
  type: 'object',
  required: ['redirect'],
  additionalProperties: false,
  properties: {
    redirect: {
      type: 'object',
      required: ['version', 'from', 'to', 'location'],
      additionalProperties: false,
      properties: {
        version: { $ref: 'VersionSlug' },
        from: { $ref: 'NodeSlug', description: 'The slug asked for: an old slug of a renamed node.' },
        to: { $ref: 'NodeSlug', description: 'The node\'s slug now.' },
        location: { type: 'string', description: 'The new URL (path and the same query string), as in `Location`.' },
      },
    },
  },
} as const;

export const redirectSchemas = [Redirect, Moved];
