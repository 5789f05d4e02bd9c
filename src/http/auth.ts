import type { Middleware } from 'koa';
import { KEY_PREFIX, UNKNOWN_KEY } from '../auth/key-file.ts';
import type { KeyRing } from '../auth/key-ring.ts';
import type { OAuthFront } from '../oauth/front.ts';
import { unauthorized, type Actor } from './actor.ts';

/**
 * Reads `Authorization: Bearer <credential>` and puts the caller on `ctx.state.actor` (null when
 * anonymous). A credential is an API key (it starts with the key prefix) or an OAuth access token,
 * which must have been issued for the resource asked: the API or the tool endpoint. A credential that
 * is present but wrong is a 401 everywhere, never a silent downgrade to anonymous.
 */
export function authenticate(keys: KeyRing, oauth: OAuthFront): Middleware {
  return async (ctx, next) => {
    // Where a 401 or 403 from below tells the client to get a token (errors.ts sends it as WWW-Authenticate).
    ctx.state.challenge = oauth.challengeFor(ctx.path);
    const header = ctx.get('authorization');
    let actor: Actor | null = null;
    if (header !== '') {
      const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
      if (!m) throw unauthorized('The Authorization header must be "Bearer <key or access token>"');
      if (m[1].startsWith(KEY_PREFIX)) {
        const key = keys.find(m[1]);
        if (!key) throw unauthorized(UNKNOWN_KEY);
        keys.touch(key, new Date().toISOString());
        actor = { kind: 'api_key', name: key.name, scopes: key.scopes, canWritePublished: key.canWritePublished, key };
      } else {
        actor = await oauth.verify(m[1], oauth.audienceFor(ctx.path));
      }
    }
    ctx.state.actor = actor;
    await next();
  };
}
