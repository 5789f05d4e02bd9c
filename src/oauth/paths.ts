/** The scopes of the API and the tool endpoint. */
export const HELP_SCOPES = ['help:read', 'help:write'] as const;

/** Where the authorization server's endpoints are, below the service's origin. */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
  // Pushed authorization requests (RFC 9126), which oidc-provider offers by default: at its default
  // path, outside /oauth, the metadata named an endpoint that did not exist.
  pushed_authorization_request: '/oauth/par',
} as const;

export const INTERACTION_PATH = '/oauth/interaction';

/** The fixed address the upstream provider sends people back to (registered there as the redirect URI). */
export const UPSTREAM_CALLBACK = '/oauth/upstream/callback';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** Whether the authorization server answers `path`: its endpoints, sign-in pages and metadata (not the protected resources'). */
export const isAuthorizationServerPath = (path: string): boolean =>
  path.startsWith('/oauth/') || path === '/.well-known/oauth-authorization-server' || path === '/.well-known/openid-configuration';
