import type { Context, Middleware } from 'koa';
import * as oidc from 'openid-client';
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import { ACCOUNT_NAME_PATTERN, AccountFile, withRole, type Account, type Role } from '../auth/accounts.ts';
import type { UpstreamConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import { isLoopback } from '../http/loopback.ts';
import { messagePage, sendPage } from './pages.ts';
import { INTERACTION_PATH, UPSTREAM_CALLBACK } from './paths.ts';

/** How long a person may take at the upstream provider. */
const PENDING_MS = 10 * 60_000;
const MAX_PENDING = 10_000;

interface Pending {
  uid: string;
  verifier: string;
  nonce: string;
  startedAt: number;
  /** Set once the upstream answer has been checked: the account it signs in. */
  account?: string;
}

/**
 * Sign-in through another OpenID Connect provider (openid-client as the relying party, with PKCE,
 * state and nonce). The first sign-in of an upstream identity creates an account linked to it; every
 * sign-in sets the account's role from the configured claim, so the identity provider stays the
 * source of truth for roles. A person who signed in upstream then gives consent on our page as usual.
 */
export class UpstreamSignIn {
  readonly name: string;
  private client: Promise<oidc.Configuration> | null = null;
  private readonly pending = new Map<string, Pending>();
  private readonly accounts: AccountFile;

  constructor(
    private readonly config: UpstreamConfig,
    private readonly issuer: string,
    private readonly provider: Provider,
    dataDir: string,
    private readonly log: Logger,
  ) {
    this.name = config.name;
    this.accounts = new AccountFile(dataDir);
  }

  startPath(uid: string): string {
    return `${INTERACTION_PATH}/${uid}/upstream`;
  }

  /** Discovery happens on first use, and again after a failure (the provider may have been down at start). */
  private discover(): Promise<oidc.Configuration> {
    const url = new URL(this.config.issuer);
    // Plain http only to a provider on this machine (development and tests).
    const insecure = url.protocol === 'http:' && isLoopback(url);
    this.client ??= oidc
      .discovery(url, this.config.clientId, { redirect_uris: [`${this.issuer}${UPSTREAM_CALLBACK}`] }, oidc.ClientSecretPost(this.config.clientSecret), insecure ? { execute: [oidc.allowInsecureRequests] } : undefined)
      .catch((err) => {
        this.client = null;
        throw new AppError('upstream_failed', `The identity provider ${this.config.issuer} could not be reached: ${(err as Error).message}`, {}, { cause: err });
      });
    return this.client;
  }

  /** GET /oauth/interaction/:uid/upstream: off to the identity provider. */
  async start(ctx: Context, uid: string): Promise<void> {
    const client = await this.discover();
    const now = Date.now();
    for (const [state, p] of this.pending) if (now - p.startedAt > PENDING_MS || this.pending.size >= MAX_PENDING) this.pending.delete(state);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    this.pending.set(state, { uid, verifier, nonce, startedAt: now });
    const url = oidc.buildAuthorizationUrl(client, {
      redirect_uri: `${this.issuer}${UPSTREAM_CALLBACK}`,
      scope: 'openid profile email',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    ctx.redirect(url.href);
  }

  /**
   * GET /oauth/upstream/callback: checks the answer (state, PKCE, nonce, ID token), finds or creates
   * the account, then sends the browser back under the interaction's path, where its cookie is.
   */
  callback(): Middleware {
    // A person's browser is waiting here: a refusal is a page, with the error's status.
    return async (ctx) => {
      try {
        await this.answer(ctx);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        sendPage(ctx, err.status, (nonce) => messagePage({ nonce, title: 'Sign-in could not continue', message: err.message }));
      }
    };
  }

  /** The callback's work; its AppErrors become the page. */
  private async answer(ctx: Context): Promise<void> {
    const state = String(ctx.query.state ?? '');
    const pending = this.pending.get(state);
    if (!pending || Date.now() - pending.startedAt > PENDING_MS) throw new AppError('unauthorized', 'This sign-in is unknown or has expired; start again from the application');
    this.pending.delete(state);
    const client = await this.discover();
    let claims: Record<string, unknown>;
    try {
      const tokens = await oidc.authorizationCodeGrant(client, new URL(`${this.issuer}${ctx.url}`), { pkceCodeVerifier: pending.verifier, expectedState: state, expectedNonce: pending.nonce });
      claims = { ...(tokens.claims() ?? {}) };
      if (!(this.config.roleClaim in claims) && tokens.access_token) {
        claims = { ...claims, ...(await oidc.fetchUserInfo(client, tokens.access_token, String(claims.sub))) };
      }
    } catch (err) {
      this.log.warn({ err }, 'upstream sign-in refused');
      throw new AppError('unauthorized', `The identity provider's answer was refused: ${(err as Error).message}`);
    }
    const account = await this.accountFor(claims);
    this.log.info({ account: account.name, role: account.role }, 'signed in upstream');
    const done = oidc.randomState();
    this.pending.set(done, { ...pending, account: account.name, startedAt: Date.now() });
    ctx.redirect(`${INTERACTION_PATH}/${pending.uid}/upstream/done?state=${encodeURIComponent(done)}`);
  }

  /** GET /oauth/interaction/:uid/upstream/done: the login result goes to the interaction. */
  async finish(ctx: Context, uid: string): Promise<void> {
    const state = String(ctx.query.state ?? '');
    const pending = this.pending.get(state);
    if (!pending?.account || pending.uid !== uid) throw new AppError('unauthorized', 'This sign-in is unknown or has expired; start again from the application');
    this.pending.delete(state);
    ctx.respond = false;
    await this.provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: pending.account } }, { mergeWithLastSubmission: false });
  }

  private roleFrom(claims: Record<string, unknown>): Role {
    const raw = claims[this.config.roleClaim];
    const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
    if (values.some((v) => this.config.adminValues.includes(v))) return 'admin';
    if (values.some((v) => this.config.editorValues.includes(v))) return 'editor';
    return 'viewer';
  }

  private async accountFor(claims: Record<string, unknown>): Promise<Account> {
    const subject = String(claims.sub ?? '');
    if (subject === '') throw new AppError('unauthorized', 'The identity provider did not say who signed in (no sub claim)');
    const role = this.roleFrom(claims);
    const now = new Date().toISOString();
    return this.accounts.update((accounts) => {
      const at = accounts.findIndex((a) => a.upstream?.issuer === this.config.issuer && a.upstream.subject === subject);
      if (at >= 0) {
        const existing = accounts[at];
        if (existing.disabled) throw new AppError('unauthorized', `The account "${existing.name}" is disabled`);
        // A new role from the identity provider ends what the account granted with the old one.
        const next = withRole(existing, role, now);
        return { accounts: accounts.map((a, i) => (i === at ? next : a)), result: next };
      }
      // Names are unique ignoring case ("Ed" and "ed" are one person to whoever reads the records).
      const taken = new Set(accounts.map((a) => a.name.toLowerCase()));
      const name = freeName([claims.preferred_username, claims.email, subject], taken);
      const account: Account = { name, role, password: null, upstream: { issuer: this.config.issuer, subject }, disabled: false, createdAt: now, updatedAt: now };
      return { accounts: [...accounts, account], result: account };
    });
  }
}

/** The first usable candidate as an account name; a taken name (`taken` holds them lower-cased) gets a number. */
function freeName(candidates: unknown[], taken: Set<string>): string {
  let base = 'user';
  for (const c of candidates) {
    if (typeof c !== 'string') continue;
    const cleaned = c.replace(/[^A-Za-z0-9._@-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 56);
    if (ACCOUNT_NAME_PATTERN.test(cleaned)) {
      base = cleaned;
      break;
    }
  }
  const free = (name: string) => !taken.has(name.toLowerCase());
  if (free(base)) return base;
  for (let i = 2; ; i++) if (free(`${base}-${i}`)) return `${base}-${i}`;
}
