import type { Context } from 'koa';
import { HELP_SCOPES, PROTECTED_RESOURCE_PATH } from './paths.ts';

/** What a 401 or 403 tells a client about where to sign in (RFC 9728 §5.1, RFC 6750 §3). */
export interface Challenge {
  resourceMetadata: string;
  scope: string;
}

/**
 * The API and the tool endpoint as OAuth protected resources: their canonical URLs, the challenge a
 * 401 carries, and their metadata (RFC 9728). None of it needs the authorization server itself, so
 * an anonymous reader or an API key never makes the service load it.
 */
export class ProtectedResources {
  readonly api: string;
  readonly mcp: string;

  constructor(
    readonly issuer: string,
    private readonly paths: { basePath: string; mcpPath: string },
  ) {
    this.api = `${issuer}${paths.basePath}`;
    this.mcp = `${issuer}${paths.mcpPath}`;
  }

  /** Where a client learns how to get a token for the resource at `path`. */
  challengeFor(path: string): Challenge {
    return { resourceMetadata: `${this.issuer}${PROTECTED_RESOURCE_PATH}${this.isToolPath(path) ? this.paths.mcpPath : this.paths.basePath}`, scope: HELP_SCOPES.join(' ') };
  }

  /** The resource a request at `path` is for: the tool endpoint or the API. */
  audienceFor(path: string): string {
    return this.isToolPath(path) ? this.mcp : this.api;
  }

  /** Answers protected-resource metadata: for the tool endpoint, for the API, and at the root for the API. False: not such a request. */
  answerMetadata(ctx: Context): boolean {
    const path = ctx.path;
    if (path !== PROTECTED_RESOURCE_PATH && !path.startsWith(`${PROTECTED_RESOURCE_PATH}/`)) return false;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
    const suffix = path.slice(PROTECTED_RESOURCE_PATH.length);
    const resource = suffix === this.paths.mcpPath ? this.mcp : suffix === '' || suffix === this.paths.basePath ? this.api : null;
    if (resource === null) return false;
    // One of three fixed paths: the label is the path itself.
    ctx.state.route = path;
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = {
      resource,
      authorization_servers: [this.issuer],
      scopes_supported: HELP_SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: resource === this.mcp ? 'Help content tool server' : 'Help content API',
      resource_documentation: `${this.issuer}${this.paths.basePath}/docs`,
    };
    return true;
  }

  private isToolPath(path: string): boolean {
    return path === this.paths.mcpPath || path.startsWith(`${this.paths.mcpPath}/`);
  }
}
