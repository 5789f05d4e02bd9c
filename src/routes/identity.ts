import { endpoint } from '../http/api.ts';
import type { Actor } from '../http/actor.ts';
import type { Deps } from '../deps.ts';

/** Who am I: the credential's description. */
export function identityRoutes(deps: Deps) {
  return [
    endpoint({
      method: 'get',
      path: '/whoami',
      operationId: 'whoami',
      summary: 'Describe the credential this request carries',
      // The PDF routes' tag (routes/pdf.ts): one group on the reference page, not two of nearly one name.
      tag: 'Identity and PDF',
      access: 'credential',
      errors: [],
      responses: { 200: { description: 'The credential', schema: 'Whoami' } },
      handle: ({ actor }) => ({ body: describeCredential(deps, actor!) }),
    }),
  ];
}

/** whoami's answer, for the API and the tool server alike. */
export function describeCredential({ keys, publisher }: Pick<Deps, 'keys' | 'publisher'>, actor: Actor) {
  const common = { scopes: actor.scopes, canWritePublished: actor.canWritePublished, publishViaPr: publisher.enabled };
  if (actor.kind === 'api_key') {
    const key = actor.key;
    return { kind: actor.kind, keyName: key.name, keyPrefix: key.prefix, createdAt: key.createdAt, lastUsedAt: keys.lastUsedAt(key), ...common };
  }
  return {
    kind: actor.kind,
    keyName: null,
    keyPrefix: null,
    createdAt: actor.issuedAt,
    lastUsedAt: null,
    accountName: actor.account,
    role: actor.role,
    clientId: actor.clientId,
    clientName: actor.clientName,
    audience: actor.audience,
    expiresAt: actor.expiresAt,
    ...common,
  };
}
