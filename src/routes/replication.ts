import { endpoint } from '../http/api.ts';
import { requireScope } from '../http/actor.ts';
import type { Deps } from '../deps.ts';

/** Seconds a long poll waits when the caller does not say. */
const DEFAULT_WAIT_S = 25;

/** The revision served, and the long poll replicas learn of new commits with (docs/replicas.md). */
export function replicationRoutes({ replication, stopping }: Pick<Deps, 'replication' | 'stopping'>) {
  return [
    endpoint<unknown, { after?: string; wait?: string }>({
      method: 'get',
      path: '/revision',
      operationId: 'getServedRevision',
      summary: 'The revision served, answered when it moves (long poll)',
      description:
        'The commit of the content repository\'s `main` that this service answers from. With `after`, the answer waits until the revision differs from it, up to `wait` seconds: a replica keeps one such request open to learn of a write on its primary at once. ' +
        'A replica answers with the revision it serves, so replicas can follow replicas. Needs a credential with `help:read` (the revision moves with writes to drafts too).',
      tag: 'Replication',
      access: 'credential',
      query: 'ServedRevisionQuery',
      errors: ['insufficient_scope'],
      responses: { 200: { description: 'The revision served now', schema: 'ServedRevision' } },
      handle: async ({ ctx, actor, query }) => {
        requireScope(actor, 'help:read');
        const after = query.after ?? null;
        const wait = query.wait === undefined ? DEFAULT_WAIT_S : Number(query.wait);
        // A client that leaves ends the wait, and so does a stop: a long poll never holds the service.
        const left = new AbortController();
        ctx.res.once('close', () => left.abort());
        const revision = after === null ? replication.revisions.current : await replication.revisions.changed(after, wait * 1000, AbortSignal.any([left.signal, stopping]));
        ctx.set('Cache-Control', 'no-store');
        // A stopping service lets the connection go: on a kept-alive one, the next poll would come straight back.
        if (stopping.aborted) ctx.set('Connection', 'close');
        return { body: { revision, changed: revision !== after } };
      },
    }),
  ];
}
