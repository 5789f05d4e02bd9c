import type { Context, Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { logoutPage, sendPage, signedOutPage } from './pages.ts';
import { OAUTH_ROUTES } from './paths.ts';

/**
 * Sign-out (RP-initiated logout) as our own pages: the library's default ones load a font from a CDN,
 * send no Content-Security-Policy, and one submits itself by script. Ours are like the login pages:
 * strict policy with a nonce, no script, nothing from elsewhere, and a button the person presses.
 */

/** Set on a request whose sign-out question was rendered by `logoutSource`. */
const RENDERED = Symbol('logout page rendered');

const clientName = (ctx: KoaContextWithOIDC): string | null => (ctx.oidc.client ? String(ctx.oidc.client.clientName ?? ctx.oidc.client.clientId) : null);

/** The confirmation form's target, as a path: relative to whatever origin the browser used. */
const confirmPath = (ctx: KoaContextWithOIDC) => new URL(ctx.oidc.urlFor('end_session_confirm')).pathname;

const xsrfOf = (ctx: KoaContextWithOIDC) => String((ctx.oidc.session?.state as { secret?: unknown } | undefined)?.secret ?? '');

/** `features.rpInitiatedLogout` of the provider's configuration. */
export const logoutPages = {
  logoutSource(ctx: KoaContextWithOIDC): void {
    (ctx.state as Record<symbol, unknown>)[RENDERED] = true;
    sendPage(ctx, 200, (nonce) => logoutPage({ nonce, action: confirmPath(ctx), xsrf: xsrfOf(ctx), clientName: clientName(ctx), signedIn: true }));
  },
  postLogoutSuccessSource(ctx: KoaContextWithOIDC): void {
    sendPage(ctx, 200, (nonce) => signedOutPage({ nonce, clientName: clientName(ctx) }));
  },
};

export const isLogoutPath = (path: string) => path === OAUTH_ROUTES.end_session || path.startsWith(`${OAUTH_ROUTES.end_session}/`);

/**
 * Around the library's sign-out routes (a Host that makes no URL, with which the library failed with a
 * server error, never gets here: http/host.ts refuses it for every path). When nobody is signed in the
 * library answers a page that submits itself by script; it becomes our page with a button.
 */
export async function aroundLogout(ctx: Context, next: Next): Promise<void> {
  await next();
  const oidcCtx = ctx as unknown as KoaContextWithOIDC;
  if (oidcCtx.oidc?.route !== 'end_session' || ctx.status !== 200 || (ctx.state as Record<symbol, unknown>)[RENDERED]) return;
  sendPage(ctx, 200, (nonce) => logoutPage({ nonce, action: confirmPath(oidcCtx), xsrf: xsrfOf(oidcCtx), clientName: clientName(oidcCtx), signedIn: false }));
}
