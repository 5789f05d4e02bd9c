import { endpoint } from '../http/api.ts';
import type { Deps } from '../deps.ts';

/** Who am I: the credential's description. */
export function identityRoutes({ keys, publisher }: Deps) {
  return [
    endpoint({
      method: 'get',
      path: '/whoami',
      operationId: 'whoami',
      summary: 'Describe the credential this request carries',
      tag: 'Identity',
      access: 'credential',
      errors: [],
      responses: { 200: { description: 'The credential', schema: 'Whoami' } },
      handle: ({ actor }) => {
        const key = actor!.key;
        return {
          body: {
            kind: actor!.kind,
            keyName: key.name,
            keyPrefix: key.prefix,
            createdAt: key.createdAt,
            lastUsedAt: keys.lastUsedAt(key),
            scopes: key.scopes,
            canWritePublished: key.canWritePublished,
            publishViaPr: publisher.enabled,
          },
        };
      },
    }),
  ];
}
