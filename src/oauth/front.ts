import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { AccountBook } from '../auth/accounts.ts';
import type { Config } from '../config.ts';
import { onFirstUse } from '../first-use.ts';
import type { OAuthActor } from '../http/actor.ts';
import { loadSecrets } from './keys.ts';
import { isAuthorizationServerPath } from './paths.ts';
import { ProtectedResources, type Challenge } from './resource.ts';
import type { AuthorizationServer } from './server.ts';

interface Loaded {
  server: AuthorizationServer;
  handle: Middleware;
}

/**
 * OAuth as the rest of the service sees it. The protected resources' side (challenges, audiences,
 * metadata) is answered at once; the authorization server (oidc-provider, openid-client and our
 * sign-in pages: about 15 MB of memory and a fifth of the start-up code) is built by the first
 * request to one of its paths or the first access token presented, because a deployment that only
 * uses API keys, or none, never needs it.
 */
export class OAuthFront {
  readonly resources: ProtectedResources;
  /** The keys of the authorization server's signed cookies (Koa's `app.keys`). */
  readonly cookieKeys: string[];
  private readonly load: () => Promise<Loaded>;
  private started: Promise<Loaded> | null = null;

  constructor(issuer: string, config: Config, accounts: AccountBook, log: Logger) {
    this.resources = new ProtectedResources(issuer, config);
    // Read at start all the same: Koa signs cookies with them, and the file is made on the first start.
    const secrets = loadSecrets(config.dataDir);
    this.cookieKeys = secrets.cookieKeys;
    const load = onFirstUse('authorization server', async (): Promise<Loaded> => {
      const { AuthorizationServer } = await import('./server.ts');
      const server = await AuthorizationServer.create(this.resources, secrets, config, accounts, log);
      return { server, handle: server.middleware() };
    });
    this.load = () => (this.started = load());
  }

  get issuer(): string {
    return this.resources.issuer;
  }

  challengeFor(path: string): Challenge {
    return this.resources.challengeFor(path);
  }

  audienceFor(path: string): string {
    return this.resources.audienceFor(path);
  }

  /** Protected-resource metadata, then the authorization server's routes and sign-in pages. */
  middleware(): Middleware {
    return async (ctx, next) => {
      if (this.resources.answerMetadata(ctx)) return;
      if (!isAuthorizationServerPath(ctx.path)) return next();
      const { handle } = await this.load();
      return handle(ctx, next);
    };
  }

  /** The caller behind an access token (see AuthorizationServer.verify). */
  async verify(token: string, audience: string): Promise<OAuthActor> {
    const { server } = await this.load();
    return server.verify(token, audience);
  }

  async close(): Promise<void> {
    const loaded = await this.started?.catch(() => null);
    await loaded?.server.close();
  }
}
