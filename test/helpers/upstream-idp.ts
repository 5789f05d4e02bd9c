import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** The client the service under test is registered as at the upstream provider (`HELP_OIDC_CLIENT_ID`/`_SECRET`). */
export const UPSTREAM_CLIENT_ID = 'help-service';
export const UPSTREAM_CLIENT_SECRET = 'upstream-secret-0123456789';

export type UpstreamPeople = Record<string, { preferred_username: string; groups: string[] }>;

export interface UpstreamIdp {
  issuer: string;
  /** Who the provider says has signed in, from the next sign-in on. */
  signInAs(sub: string): void;
  stop(): Promise<void>;
}

/**
 * An oidc-provider standing in for the organisation's identity provider. Whoever is signed in there
 * is signed in already: its interactions finish at once, as a single sign-on would.
 *
 * `redirectUri` is a function because the service's callback address is only known once the service
 * is listening, and the service needs this issuer to start; the provider is built on its first request.
 */
export async function startUpstreamIdp(options: { people: UpstreamPeople; signedIn: string; redirectUri: () => string }): Promise<UpstreamIdp> {
  const { people } = options;
  let signedIn = options.signedIn;
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const build = () => {
    const provider = new Provider(issuer, {
      clients: [{ client_id: UPSTREAM_CLIENT_ID, client_secret: UPSTREAM_CLIENT_SECRET, redirect_uris: [options.redirectUri()], token_endpoint_auth_method: 'client_secret_post' }],
      claims: { openid: ['sub'], profile: ['preferred_username', 'groups'] },
      findAccount: (_ctx, sub) => (people[sub] ? { accountId: sub, claims: () => ({ sub, ...people[sub] }) } : undefined),
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/sso/${interaction.uid}` },
      cookies: { keys: ['upstream-cookie-key'] },
    });
    provider.use(async (ctx, next) => {
      if (!ctx.path.startsWith('/sso/')) return next();
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      ctx.respond = false;
      if (details.prompt.name === 'login') {
        return provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: signedIn } }, { mergeWithLastSubmission: false });
      }
      const grant = new provider.Grant({ accountId: signedIn, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      return provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    });
    return provider.callback();
  };
  let handle: ReturnType<typeof build> | undefined;
  server.on('request', (req, res) => (handle ??= build())(req, res));

  return {
    issuer,
    signInAs: (sub) => {
      signedIn = sub;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
