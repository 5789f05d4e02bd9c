import type * as OidcProvider from 'oidc-provider';
import type { Logger } from 'pino';

export type OidcProviderModule = typeof OidcProvider;

let loaded: Promise<OidcProviderModule> | null = null;

/**
 * oidc-provider, loaded once, when the authorization server is first needed (oauth/front.ts); a failed
 * load is tried again by the next caller. On Node 20 the library prints "Unsupported runtime" to
 * stderr as it loads (it supports Node 22 and later officially; the service is tested on both): that
 * line goes to the log as one warning instead, so that stderr holds only what the service itself has
 * to say.
 */
export function loadOidcProvider(log: Logger): Promise<OidcProviderModule> {
  loaded ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      const text = args.map(String).join(' ');
      if (text.includes('oidc-provider WARNING')) log.warn({ runtime: process.version }, text.replace(/\x1b\[[0-9;]*m/g, ''));
      else warn(...args);
    };
    try {
      return await import('oidc-provider');
    } catch (err) {
      loaded = null;
      throw err;
    } finally {
      console.warn = warn;
    }
  })();
  return loaded;
}
