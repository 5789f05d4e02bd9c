import { OAUTH_ROUTES } from './paths.ts';

export type OAuthRoute = keyof typeof OAUTH_ROUTES;

const byPath = new Map<string, OAuthRoute>(Object.entries(OAUTH_ROUTES).map(([name, path]) => [path, name as OAuthRoute]));

/**
 * The endpoint oidc-provider routes `path` to, or null. Its router compares paths without regard to
 * ASCII case and takes one trailing slash (`/oauth/Token/` is the token endpoint); it decodes no
 * percent-escapes and folds no double slashes, and the paths are ASCII. Limits per endpoint key on
 * this, so that no spelling of a path the library answers goes round them.
 */
export function routeOf(path: string): OAuthRoute | null {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return byPath.get(trimmed.replace(/[A-Z]+/g, (s) => s.toLowerCase())) ?? null;
}
