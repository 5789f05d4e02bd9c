import { KEY_PREFIX, UNKNOWN_KEY } from '../../auth/key-file.ts';
import type { KeyRing } from '../../auth/key-ring.ts';
import { unauthorized, type Actor } from '../../http/actor.ts';
import { secretOf } from '../../http/authorization.ts';
import type { OAuthFront } from '../../oauth/front.ts';

/** The challenge of a 401 on `content.git`: git asks its credential helper on a Basic challenge. */
export const BASIC_CHALLENGE = 'Basic realm="help-content", charset="UTF-8"';

/**
 * The caller of a request to `content.git`, or null when anonymous. git sends a credential as
 * HTTP Basic (what credential helpers hold: any user name, the key or an access token as the
 * password); `Authorization: Bearer`, as the API takes it, works too (`http.extraHeader`). Checked
 * on every request, as every request of the API is: a key revoked between a clone's two requests
 * ends the clone.
 */
export async function gitActor(header: string, keys: KeyRing, oauth: OAuthFront, audience: string): Promise<Actor | null> {
  if (header === '') return null;
  const secret = secretOf(header);
  if (secret === null) throw unauthorized('The Authorization header must be "Basic <base64 of name:key>" or "Bearer <key or access token>"');
  if (!secret.startsWith(KEY_PREFIX)) return oauth.verify(secret, audience);
  const key = keys.find(secret);
  if (!key) throw unauthorized(UNKNOWN_KEY);
  keys.touch(key, new Date().toISOString());
  return { kind: 'api_key', name: key.name, scopes: key.scopes, canWritePublished: key.canWritePublished, key };
}
