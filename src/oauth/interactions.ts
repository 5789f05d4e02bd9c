import Router from '@koa/router';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import { mayConsent, verifyPassword, type AccountBook } from '../auth/accounts.ts';
import { AppError } from '../errors.ts';
import { readForm } from './form.ts';
import { consentPage, describedScopes, loginPage, messagePage, sendPage } from './pages.ts';
import { HELP_SCOPES, INTERACTION_PATH } from './paths.ts';
import type { RateLimit } from './rate-limit.ts';
import type { UpstreamSignIn } from './upstream.ts';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

export interface InteractionOptions {
  provider: Provider;
  accounts: AccountBook;
  issuer: string;
  csrfKey: string;
  limits: { perAccount: RateLimit; perAddress: RateLimit };
  /** Link to upstream sign-in for an interaction, when an upstream provider is configured. */
  upstream: UpstreamSignIn | null;
  log: Logger;
}

/** A password check costs the same whether or not the account exists (no hint which names are taken). */
const DECOY = { algorithm: 'scrypt' as const, N: 1 << 15, r: 8, p: 1, salt: 'AAAAAAAAAAAAAAAAAAAAAA', hash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };

/**
 * Our login and consent pages for oidc-provider's interactions. Every form carries a token bound to
 * the interaction (an HMAC of its id) besides the interaction cookie the library checks, and a POST
 * whose Origin is another site is refused, so another site cannot submit them.
 */
export function interactionRoutes(o: InteractionOptions): Router {
  const router = new Router({ prefix: INTERACTION_PATH });
  const csrfFor = (uid: string) => createHmac('sha256', o.csrfKey).update(uid).digest('base64url');

  const details = async (ctx: Context): Promise<Details> => {
    try {
      const d = await o.provider.interactionDetails(ctx.req, ctx.res);
      if (d.uid !== ctx.params.uid) throw new Error('interaction mismatch');
      return d;
    } catch {
      throw new AppError('unauthorized', 'This sign-in has expired or belongs to another browser; start again from the application');
    }
  };

  /** Checks the form's token and, when the browser says where the form came from, that it came from here. */
  const checkForm = async (ctx: Context, uid: string): Promise<URLSearchParams> => {
    const origin = ctx.get('origin');
    if (origin !== '' && origin !== new URL(o.issuer).origin) throw new AppError('unauthorized', 'The form was sent from another site');
    const form = await readForm(ctx);
    const expected = Buffer.from(csrfFor(uid));
    const got = Buffer.from(form.get('csrf') ?? '');
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) throw new AppError('unauthorized', 'The form is not from this sign-in; reload the page and try again');
    return form;
  };

  const clientOf = async (d: Details) => {
    const client = await o.provider.Client.find(String(d.params.client_id));
    const name = (client?.clientName as string | undefined) ?? String(d.params.client_id);
    return { name, id: String(d.params.client_id), refreshes: client?.grantTypeAllowed('refresh_token') ?? false };
  };

  const renderLogin = async (ctx: Context, d: Details, status: number, username: string, error: string | null) => {
    const client = await clientOf(d);
    sendPage(ctx, status, (nonce) =>
      loginPage({
        nonce,
        action: `${INTERACTION_PATH}/${d.uid}/login`,
        csrf: csrfFor(d.uid),
        clientName: client.name,
        username,
        error,
        upstream: o.upstream ? { name: o.upstream.name, href: o.upstream.startPath(d.uid) } : null,
      }),
    );
  };

  const refuse = (ctx: Context, error: string, description: string) =>
    o.provider.interactionFinished(ctx.req, ctx.res, { error, error_description: description }, { mergeWithLastSubmission: false });

  // A browser is on the other end: failures are pages, not JSON.
  router.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'payload_too_large' || err.code === 'unsupported_media_type') throw err;
      ctx.respond = true;
      sendPage(ctx, err.status, (nonce) => messagePage({ nonce, title: 'Sign-in could not continue', message: err.message }));
    }
  });

  router.get('/:uid', async (ctx) => {
    const d = await details(ctx);
    if (d.prompt.name === 'login') return renderLogin(ctx, d, 200, '', null);
    const accountId = d.session?.accountId;
    const account = accountId ? o.accounts.active(accountId) : null;
    if (!account) return renderLogin(ctx, d, 200, '', 'Your account is not active any more; sign in again.');
    if (!mayConsent(account.role)) {
      ctx.respond = false;
      return refuse(ctx, 'access_denied', `account ${account.name} is a ${account.role}; only admin and editor accounts can give consent`);
    }
    const client = await clientOf(d);
    const redirect = String(d.params.redirect_uri ?? '');
    // Exactly what the token will carry: the scopes asked for that this service grants (others are
    // dropped by the authorization server), never a default list.
    const asked = new Set(String(d.params.scope ?? '').split(' '));
    // A client that may refresh gets a refresh token whether or not it asked for offline_access.
    if (client.refreshes) asked.add('offline_access');
    const scopes = describedScopes(asked);
    const resources = ([] as string[]).concat((d.params.resource as string | string[] | undefined) ?? []);
    sendPage(ctx, 200, (nonce) =>
      consentPage({
        nonce,
        action: `${INTERACTION_PATH}/${d.uid}/confirm`,
        csrf: csrfFor(d.uid),
        clientName: client.name,
        clientId: client.id,
        redirectHost: URL.canParse(redirect) ? new URL(redirect).host || redirect : redirect,
        account: account.name,
        role: account.role,
        scopes,
        noContent: !HELP_SCOPES.some((s) => asked.has(s)),
        resources: resources.length > 0 ? resources : ['this service'],
      }),
    );
  });

  router.post('/:uid/login', async (ctx) => {
    const d = await details(ctx);
    const form = await checkForm(ctx, d.uid);
    const username = (form.get('username') ?? '').trim();
    const password = form.get('password') ?? '';
    // The account's attempt is counted before the password is checked, and handed back only when it
    // succeeds: guesses sent at once cannot all be checked before the first of them is counted.
    const key = username.toLowerCase();
    let wait = o.limits.perAddress.take(ctx.ip);
    if (wait === 0) wait = o.limits.perAccount.reserve(key);
    if (wait > 0) {
      ctx.set('Retry-After', String(wait));
      return renderLogin(ctx, d, 429, username, `Too many sign-in attempts. Try again in ${wait} seconds.`);
    }
    const account = o.accounts.active(username);
    const ok = await verifyPassword(password, account?.password ?? DECOY);
    if (!account || !account.password || !ok) {
      o.log.info({ account: username, ip: ctx.ip }, 'sign-in refused');
      return renderLogin(ctx, d, 401, username, 'The account name or password is wrong, or the account is disabled.');
    }
    o.limits.perAccount.release(key);
    o.log.info({ account: account.name, client: d.params.client_id }, 'signed in');
    ctx.respond = false;
    await o.provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: account.name } }, { mergeWithLastSubmission: false });
  });

  router.post('/:uid/confirm', async (ctx) => {
    const d = await details(ctx);
    const form = await checkForm(ctx, d.uid);
    ctx.respond = false;
    if (form.get('decision') !== 'allow') return refuse(ctx, 'access_denied', 'the account holder denied access');
    const account = d.session?.accountId ? o.accounts.active(d.session.accountId) : null;
    if (!account) return refuse(ctx, 'access_denied', 'the account is not active');
    if (!mayConsent(account.role)) return refuse(ctx, 'access_denied', `account ${account.name} is a ${account.role}; only admin and editor accounts can give consent`);
    const grant = d.grantId ? await o.provider.Grant.find(d.grantId) : new o.provider.Grant({ accountId: account.name, clientId: String(d.params.client_id) });
    if (!grant) return refuse(ctx, 'access_denied', 'the grant has been revoked; start again');
    const missing = d.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant.save();
    o.log.info({ account: account.name, client: d.params.client_id, scope: d.params.scope }, 'consent given');
    await o.provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  });

  if (o.upstream) {
    const upstream = o.upstream;
    router.get('/:uid/upstream', async (ctx) => {
      const d = await details(ctx);
      await upstream.start(ctx, d.uid);
    });
    router.get('/:uid/upstream/done', async (ctx) => {
      const d = await details(ctx);
      await upstream.finish(ctx, d.uid);
    });
  }

  router.post('/:uid/abort', async (ctx) => {
    const d = await details(ctx);
    await checkForm(ctx, d.uid);
    ctx.respond = false;
    await refuse(ctx, 'access_denied', 'the account holder cancelled the sign-in');
  });

  return router;
}
