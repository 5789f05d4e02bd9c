import { withHint } from './common.ts';

/** Schemas of replication: the revision a service serves, and the long poll replicas follow it with (docs/replicas.md). */

/** A commit id of the content repository, as git writes it (40 lower-case hexadecimal digits). */
export const REVISION_PATTERN = '^[0-9a-f]{40}$';

export const ServedRevisionQuery = {
  $id: 'ServedRevisionQuery',
  type: 'object',
  properties: {
    after: withHint({ type: 'string', pattern: REVISION_PATTERN, description: 'The revision the caller has: the answer waits until the served revision differs from it (at most `wait` seconds). Without it, the answer is at once.' } as const, 'must be a commit id: 40 hexadecimal digits in lower case'),
    wait: withHint({ type: 'string', pattern: '^(?:[0-9]|[1-5][0-9])$', description: 'Seconds to wait for a change of revision, 0 to 59 (default 25). The answer comes as soon as `main` moves.' } as const, 'must be a whole number of seconds from 0 to 59'),
  },
} as const;

export const ServedRevision = {
  $id: 'ServedRevision',
  type: 'object',
  required: ['revision', 'changed'],
  additionalProperties: false,
  properties: {
    revision: { oneOf: [{ type: 'string', pattern: REVISION_PATTERN }, { type: 'null' }], description: 'The commit of `main` the service answers from now (null: the repository has no commit yet). Every answer of the service carries the same in `X-Content-Revision`.' },
    changed: { type: 'boolean', description: 'Whether `revision` differs from `after`; false when the wait ended without a change.' },
  },
} as const;

export const replicationSchemas = [ServedRevisionQuery, ServedRevision];
