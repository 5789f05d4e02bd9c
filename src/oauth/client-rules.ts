import { isLoopback } from '../http/loopback.ts';

/**
 * What a client may register, beyond oidc-provider's own checks. Registration is anonymous, and
 * what is registered is kept and shown on the consent page: its size is bounded, its name is plain
 * text, and its redirect URIs are https unless they stay on the user's machine (OAuth 2.1 §8.4.2).
 */
export const CLIENT_NAME_MAX = 100;
export const URI_MAX = 2048;
export const REDIRECT_URIS_MAX = 10;
/** Any other value (a list of contacts, a JWK set) as JSON. */
const VALUE_MAX = 8192;

/** Fields that are lists of URIs; their names start the error's description, which makes the error code (invalid_redirect_uri for redirect_uris). */
const URI_LISTS = ['redirect_uris', 'post_logout_redirect_uris', 'request_uris'];

/**
 * Control characters, and the marks that reorder text when shown (U+202A–U+202E, U+2066–U+2069,
 * U+200E/U+200F, U+061C): a name built with them reads on the consent page as another client's.
 */
const UNSAFE_TEXT = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/**
 * The first rule the metadata breaks, as the description of an invalid_client_metadata error, or
 * null. Values of the wrong type are left for oidc-provider, which refuses them in its own words.
 */
export function clientMetadataProblem(metadata: Record<string, unknown>): string | null {
  const name = metadata.client_name;
  if (typeof name === 'string') {
    if ([...name].length > CLIENT_NAME_MAX) return `client_name must be at most ${CLIENT_NAME_MAX} characters`;
    if (UNSAFE_TEXT.test(name)) return 'client_name must not contain control or bidirectional formatting characters';
  }
  for (const field of URI_LISTS) {
    const list = metadata[field];
    if (!Array.isArray(list)) continue;
    if (list.length > REDIRECT_URIS_MAX) return `${field} must hold at most ${REDIRECT_URIS_MAX} URIs`;
    for (const uri of list) if (typeof uri === 'string' && uri.length > URI_MAX) return `${field} must hold URIs of at most ${URI_MAX} characters`;
  }
  const redirects = metadata.redirect_uris;
  if (Array.isArray(redirects)) {
    for (const uri of redirects) {
      if (typeof uri === 'string' && URL.canParse(uri) && new URL(uri).protocol === 'http:' && !isLoopback(uri)) {
        return `redirect_uris must use https; plain http is only for loopback addresses (127.0.0.1, [::1], localhost): ${uri.slice(0, 100)}`;
      }
    }
  }
  for (const [field, value] of Object.entries(metadata)) {
    if (field === 'client_name' || URI_LISTS.includes(field) || value === undefined) continue;
    if (typeof value === 'string') {
      if (value.length > URI_MAX) return `${field} must be at most ${URI_MAX} characters`;
    } else if (Array.isArray(value) && value.length > REDIRECT_URIS_MAX) {
      return `${field} must hold at most ${REDIRECT_URIS_MAX} values`;
    } else if (typeof value === 'object' && value !== null && JSON.stringify(value).length > VALUE_MAX) {
      return `${field} must be at most ${VALUE_MAX} characters as JSON`;
    }
  }
  return null;
}

/** state and nonce are echoed back to the client and kept with the sign-in while it runs. */
export const STATE_MAX = 512;
/** Every other authorization parameter: URIs, hints, scopes, locales. */
const PARAM_MAX = URI_MAX;
const BOUNDED_PARAMS = [
  'acr_values', 'claims_locales', 'code_challenge', 'code_challenge_method', 'display', 'id_token_hint', 'login_hint',
  'max_age', 'prompt', 'redirect_uri', 'resource', 'response_mode', 'response_type', 'scope', 'ui_locales',
];

/**
 * oidc-provider's `extraParams` validators bounding the authorization request's parameters: they run
 * before the request is kept (as an interaction, or a pushed request). `refuse` makes the library's
 * invalid_request error, which the client gets as any other.
 */
export function authorizationParamBounds(refuse: (description: string) => Error) {
  const bound = (name: string, max: number) => (_ctx: unknown, value: unknown) => {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'string' && v.length > max) throw refuse(`${name} must be at most ${max} characters`);
    }
  };
  return Object.fromEntries([
    ['state', bound('state', STATE_MAX)],
    ['nonce', bound('nonce', STATE_MAX)],
    ...BOUNDED_PARAMS.map((name) => [name, bound(name, PARAM_MAX)]),
  ]);
}
