import type { Context } from 'koa';
import type { OAuthConfig } from '../config.ts';
import { messagePage, sendPage } from './pages.ts';
import { RateLimit } from './rate-limit.ts';
import { routeOf } from './route.ts';
import type { OAuthStore } from './store.ts';

/**
 * The limits the authorization server puts on requests before oidc-provider sees them: token
 * requests and client registrations per client address, and no new client or sign-in while the
 * store is full (tokens, refreshes and sign-ins under way go on). Refusals are in OAuth's error
 * shape (RFC 6749 §5.2, RFC 7591 §3.2.2), as every other answer of these endpoints: clients read
 * `error` as a string.
 */
export class RequestLimits {
  private readonly token: RateLimit;
  private readonly register: RateLimit;

  constructor(config: OAuthConfig, private readonly store: OAuthStore) {
    this.token = new RateLimit(config.tokenLimit, 60_000);
    this.register = new RateLimit(config.registerLimit, 3600_000);
  }

  /** Answers the request when a limit refuses it; true then. */
  refuse(ctx: Context): boolean {
    const route = routeOf(ctx.path);
    if (route === 'token' && ctx.method === 'POST') {
      const wait = this.token.take(ctx.ip);
      if (wait > 0) return answer(ctx, 429, wait, `Too many token requests from this address; retry in ${wait} seconds`);
    }
    if (route === 'registration' && ctx.method === 'POST') {
      const wait = this.register.take(ctx.ip);
      if (wait > 0) return answer(ctx, 429, wait, `Too many client registrations from this address; retry in ${wait} seconds`);
      const full = this.store.fullFor();
      if (full > 0) return answer(ctx, 503, full, `The authorization server's store is full; no client can be registered now; retry in ${full} seconds`);
    }
    // A new sign-in (the resume of one under way has a path of its own, and is let through).
    if ((route === 'authorization' && (ctx.method === 'GET' || ctx.method === 'POST')) || (route === 'pushed_authorization_request' && ctx.method === 'POST')) {
      const full = this.store.fullFor();
      if (full === 0) return false;
      const why = `The authorization server's store is full; no sign-in can begin now; retry in ${full} seconds`;
      // A person's browser asks for /authorize: it gets a page, as for every other sign-in problem; a pushed request is a client's.
      if (route === 'pushed_authorization_request') return answer(ctx, 503, full, why);
      ctx.set('Retry-After', String(full));
      sendPage(ctx, 503, (nonce) => messagePage({ nonce, title: 'Sign-in is not possible right now', message: `${why}, then start again from the application.` }));
      return true;
    }
    return false;
  }
}

function answer(ctx: Context, status: 429 | 503, wait: number, description: string): true {
  ctx.status = status;
  ctx.set('Retry-After', String(wait));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'temporarily_unavailable', error_description: description };
  return true;
}
