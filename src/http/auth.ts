import type { Middleware } from 'koa';
import type { KeyRing } from '../auth/key-ring.ts';
import { unauthorized, type Actor } from './actor.ts';

/**
 * Reads `Authorization: Bearer <key>` and puts the caller on `ctx.state.actor` (null when anonymous).
 * A credential that is present but wrong is a 401 everywhere, never a silent downgrade to anonymous.
 */
export function authenticate(keys: KeyRing): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    let actor: Actor | null = null;
    if (header !== '') {
      const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
      if (!m) throw unauthorized('The Authorization header must be "Bearer <key>"');
      const key = keys.find(m[1]);
      if (!key) throw unauthorized('The key is unknown or has been revoked');
      keys.touch(key, new Date().toISOString());
      actor = { kind: 'api_key', name: key.name, scopes: key.scopes, canWritePublished: key.canWritePublished, key };
    }
    ctx.state.actor = actor;
    await next();
  };
}
