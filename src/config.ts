import { accessSync, constants, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AA_RATIO, contrast, darkVariant, LIGHT_BACKGROUND, parseHex, textOn, toHex } from './domain/contrast.ts';
import { isHeaderToken } from './domain/names.ts';
import { webhookConfig, type WebhookConfig } from './webhooks/config.ts';
import { replicaConfig, type ReplicaConfig } from './replica/config.ts';
import { feedbackConfig, type FeedbackConfig } from './feedback/config.ts';
import { onOff, whole } from './env-values.ts';

/** The project folder: one level above this module, in src/ as in the built dist/. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Every setting of the service, read from the environment once at start, checked, and frozen.
 * docs/configuration.md's settings table documents the same list.
 */
export interface Config {
  /** TCP port (`PORT`, default 8080; 0 picks a free one). */
  readonly port: number;
  /** Interface to listen on (`HOST`, default 127.0.0.1). */
  readonly host: string;
  /** Where the content repository, keys and lock file live (`HELP_DATA_DIR`, default ./data). */
  readonly dataDir: string;
  /** Content imported on first start when the repository holds no version (`HELP_SAMPLE_CONTENT`; `off` disables). */
  readonly sampleContentDir: string | null;
  /** Largest JSON body accepted, in bytes (`HELP_BODY_LIMIT`, default 5 MB). */
  readonly bodyLimit: number;
  /** Public origin of the service for absolute URLs it hands out, e.g. https://help.example.com (`HELP_PUBLIC_URL`; default: from the request's Host). */
  readonly publicUrl: string | null;
  /** How long a CDN or browser may keep an anonymous read, in seconds (`HELP_CACHE_MAX_AGE`, default 60). */
  readonly cacheMaxAge: number;
  /** Bytes of gzip-compressed exports kept in memory (`HELP_EXPORT_CACHE_MB`, default 256 MB; 0 keeps none). */
  readonly exportCacheBytes: number;
  /** Bytes of serialized public answers, and (a quarter) of encoded topic bodies, kept in memory (`HELP_ANSWER_CACHE_MB`, default 64 MB; 0 turns the answer cache off). */
  readonly answerCacheBytes: number;
  /** Bytes the search by relevance keeps between searches, in all (`HELP_SEARCH_CACHE_MB`, default 80 MB; 0: nothing, every search makes what it needs). */
  readonly searchCacheBytes: number;
  /** pino log level (`LOG_LEVEL`, default info; `silent` turns logging off). */
  readonly logLevel: string;
  /** Path prefix of the API (fixed: the API version is part of the path). */
  readonly basePath: '/help/v1';
  /** Origins whose pages may send credentialed requests and writes (`HELP_CORS_ORIGINS`, comma-separated; default none). Anonymous reads are open to every origin. */
  readonly corsOrigins: ReadonlySet<string>;
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>` (`HELP_METRICS_TOKEN`; default: open, like /healthz). */
  readonly metricsToken: string | null;
  /** Commits between two runs of `git gc` in the background (`HELP_GC_EVERY`, default 500; 0 turns it off). */
  readonly gcEvery: number;
  /**
   * History is repacked with deltas once writes pause and the packs written since the last repack
   * hold this share of the repository's bytes (`HELP_REPACK_PERCENT`, default 10; 0 turns it off).
   */
  readonly repackShare: number;
  /**
   * Worker threads that build the search indexes of versions loaded without a snapshot, so a start
   * uses every core (`HELP_INDEX_WORKERS`, default: the cores Node.js may use; 0 indexes on the main thread).
   */
  readonly indexWorkers: number;
  /**
   * Characters of text a version indexed from nothing must have for the workers to build its indexes
   * (`HELP_INDEX_WORKERS_MIN_MCHARS`, millions of characters, default 32): below that the main thread is as fast.
   */
  readonly indexWorkersMinChars: number;
  /** Publishing through pull requests; null when off (`HELP_PUBLISH_VIA_PR`). */
  readonly publishing: PublishingConfig | null;
  /** Path of the MCP tool server (`HELP_MCP_PATH`, default /mcp), outside the API's base path. */
  readonly mcpPath: string;
  /** Origins whose pages may call the tool server besides the service's own and `corsOrigins` (`HELP_MCP_ALLOWED_ORIGINS`, comma-separated; default none). */
  readonly mcpAllowedOrigins: ReadonlySet<string>;
  /**
   * Characters of text (titles, summaries, bodies) the tool server answers with at most in one HTTP
   * request, every call of a batch together (`HELP_MCP_ANSWER_MCHARS`, millions, default 4): a tool
   * answer is serialized in one piece, twice. Four million characters is about a million tokens, more
   * than any agent reads in one answer; the REST export streams a whole version.
   */
  readonly mcpAnswerChars: number;
  /** Characters of text one caller (a credential, or an address when anonymous) is answered with per minute by the tool server (`HELP_MCP_CALLER_MCHARS`, millions, default 64). */
  readonly mcpCallerChars: number;
  /** Tool-server requests handled at once in all (`HELP_MCP_CONCURRENCY`, default 16) and per client address (`HELP_MCP_CONCURRENCY_PER_ADDRESS`, default 4); beyond: 429 with Retry-After. */
  readonly mcpConcurrency: number;
  readonly mcpConcurrencyPerAddress: number;
  /**
   * The proxies whose `X-Forwarded-For` is believed (`HELP_TRUSTED_PROXIES`): addresses or CIDR
   * ranges (`10.0.0.0/8`, `::1`), or a number of hops in front of the service. Empty: none, and every
   * limit per address keys on the connection's address.
   */
  readonly trustedProxies: TrustedProxies;
  /** Connections one client address may hold open at once (`HELP_CONNECTIONS_PER_ADDRESS`, default 64; trusted proxies are exempt). */
  readonly connectionsPerAddress: number;
  /** Seconds a request may take to arrive whole, headers and body (`HELP_REQUEST_TIMEOUT`, default 60). */
  readonly requestTimeoutSeconds: number;
  /**
   * git processes serving `content.git` to git clients at once, in all (`HELP_GIT_CONCURRENCY`, default 8)
   * and per client address (`HELP_GIT_CONCURRENCY_PER_ADDRESS`, default 4); beyond: 429 with Retry-After.
   * Each is a git upload-pack, which takes a core and memory of its own while it packs a clone.
   */
  readonly gitConcurrency: number;
  readonly gitConcurrencyPerAddress: number;
  /** Seconds one request to `content.git` may run before its git process is ended (`HELP_GIT_TIMEOUT`, default 600). */
  readonly gitTimeoutSeconds: number;
  /** Megabytes of pack one `git push` to `content.git` may send (`HELP_GIT_PUSH_MAX_MB`, default 50); beyond, the push is refused whole. */
  readonly gitPushMaxMb: number;
  /** The authorization server (OAuth sign-in for API clients and tool clients). */
  readonly oauth: OAuthConfig;
  /** The reader portal: HTML pages of the published versions. */
  readonly portal: PortalConfig;
  /** Outbound webhooks: the allow-list, retries and timeouts (webhooks/config.ts). */
  readonly webhooks: WebhookConfig;
  /** The primary this service follows as a read replica (`HELP_REPLICA_OF`, `HELP_REPLICA_KEY`, replica/config.ts); null: it is a primary. */
  readonly replica: ReplicaConfig | null;
  /** Reader feedback and the search report: limits, sizes, the switch (feedback/config.ts). */
  readonly feedback: FeedbackConfig;
  /**
   * A folder of PDF font files, named as served (`noto-sans-jp-400.ttf`), looked in before vendor/fonts/
   * and the font packages (`HELP_FONT_DIR`; default none): how a production install, which leaves out
   * the CJK packages, gets Japanese, Chinese and Korean fonts (docs/portal.md#fonts).
   */
  readonly fontDir: string | null;
}

/** The reader portal (`src/portal/`): where it lives, what it is called, which versions it shows. */
export interface PortalConfig {
  /** Path prefix of the portal's pages (`HELP_PORTAL_PATH`, default /support). */
  readonly path: string;
  /** The site's name in every page's header and title (`HELP_PORTAL_TITLE`, default "Help"). */
  readonly title: string;
  /** An image shown before the title: an https URL or a path on this origin (`HELP_PORTAL_LOGO`; default none). */
  readonly logo: string | null;
  /**
   * The published versions the portal serves and lists (`HELP_PORTAL_VERSIONS`): `all` (default),
   * `latest` (only the version marked latest), or comma-separated slugs. Drafts, archived versions
   * and working copies are never shown, whatever this says.
   */
  readonly versions: 'all' | 'latest' | readonly string[];
  /**
   * The brand colour of links and buttons (`HELP_PORTAL_ACCENT`, a hex colour; default the portal's
   * blue): `light` passes WCAG AA on the light background (checked at start), `dark` is derived to pass on the dark one.
   */
  readonly accent: { readonly light: string; readonly dark: string; readonly lightText: string; readonly darkText: string } | null;
  /** A file served as the pages' icon (`HELP_PORTAL_FAVICON`: an .svg, .png or .ico file; default the portal's own). */
  readonly favicon: string | null;
}

/** Who may say, in `X-Forwarded-For`, which address a request came from. */
export type TrustedProxies = { readonly kind: 'none' } | { readonly kind: 'hops'; readonly hops: number } | { readonly kind: 'list'; readonly ranges: readonly string[] };

/** OAuth sign-in: token lifetimes, limits, and an optional upstream identity provider. */
export interface OAuthConfig {
  /** Seconds an access token is valid (`HELP_OAUTH_ACCESS_TOKEN_TTL`, default 3600). */
  readonly accessTokenTtl: number;
  /** Seconds a refresh token is valid; each use replaces it (`HELP_OAUTH_REFRESH_TOKEN_TTL`, default 30 days). */
  readonly refreshTokenTtl: number;
  /** Whether an admin's token may write published versions while they are locked (`HELP_OAUTH_ADMIN_PUBLISHES`, default off). */
  readonly adminPublishes: boolean;
  /** Sign-in attempts per account in 15 minutes; an address gets three times as many (`HELP_RATE_LIMIT_LOGIN`, default 10). */
  readonly loginLimit: number;
  /** Token endpoint requests per client address and minute (`HELP_RATE_LIMIT_TOKEN`, default 60). */
  readonly tokenLimit: number;
  /** Client registrations per client address and hour (`HELP_RATE_LIMIT_REGISTER`, default 20). */
  readonly registerLimit: number;
  /** Days a registered client may go unused before it is removed (`HELP_OAUTH_CLIENT_IDLE_DAYS`, default 90; 0 never). A client that never obtained a grant goes after a day regardless. */
  readonly clientIdleDays: number;
  /** Megabytes the authorization server's store may hold (`HELP_OAUTH_STORE_MB`, default 64): beyond, new registrations and sign-ins are refused (503) until entries expire. */
  readonly storeBytes: number;
  /** Sign-in through another OpenID Connect provider; null when not configured (`HELP_OIDC_ISSUER`). */
  readonly upstream: UpstreamConfig | null;
}

export interface UpstreamConfig {
  /** Issuer URL; its discovery document must be at `/.well-known/openid-configuration` (`HELP_OIDC_ISSUER`). */
  readonly issuer: string;
  /** This service's client at the provider (`HELP_OIDC_CLIENT_ID`, `HELP_OIDC_CLIENT_SECRET`). */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The button's label: "Sign in with …" (`HELP_OIDC_NAME`, default the issuer's host). */
  readonly name: string;
  /** The ID token or userinfo claim that carries the role or groups (`HELP_OIDC_ROLE_CLAIM`, default groups). */
  readonly roleClaim: string;
  /** Claim values that make an admin / an editor (`HELP_OIDC_ADMIN_VALUES`, `HELP_OIDC_EDITOR_VALUES`, comma-separated; defaults admin / editor). Anyone else is a viewer. */
  readonly adminValues: readonly string[];
  readonly editorValues: readonly string[];
}

/** Where published versions are reviewed: a GitHub repository holding the content files. */
export interface PublishingConfig {
  /** `owner/name` (`HELP_GITHUB_REPO`). */
  readonly owner: string;
  readonly repo: string;
  /** A token that may push branches and open pull requests (`HELP_GITHUB_TOKEN`). */
  readonly token: string;
  /** REST API base URL (`HELP_GITHUB_API_URL`, default https://api.github.com; set for GitHub Enterprise). */
  readonly apiUrl: string;
  /** Branch pull requests target (`HELP_GITHUB_BASE_BRANCH`, default main). */
  readonly baseBranch: string;
  /** Folder of a version's files, `{version}` replaced by the slug (`HELP_GITHUB_PATH`, default docs/{version}). */
  readonly pathPattern: string;
  /** Secret that signs GitHub's webhook deliveries (`HELP_GITHUB_WEBHOOK_SECRET`); webhooks are refused without it. */
  readonly webhookSecret: string | null;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** A token setting (isHeaderToken), refused at start when it could not be sent: named, never quoted. */
function token(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name] ?? '';
  if (!isHeaderToken(value)) throw new ConfigError(`${name} holds white space or other characters a token does not have (a line break copied with it?)`);
  return value;
}

function publishingConfig(env: NodeJS.ProcessEnv): PublishingConfig | null {
  const flag = (env.HELP_PUBLISH_VIA_PR ?? 'off').toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(flag)) throw new ConfigError('HELP_PUBLISH_VIA_PR must be on or off');
  if (!['on', 'true', '1'].includes(flag)) return null;
  const repo = env.HELP_GITHUB_REPO ?? '';
  const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repo);
  if (!m) throw new ConfigError(`HELP_GITHUB_REPO must be owner/name when HELP_PUBLISH_VIA_PR is on, not ${JSON.stringify(repo)}`);
  if (!env.HELP_GITHUB_TOKEN) throw new ConfigError('HELP_GITHUB_TOKEN is required when HELP_PUBLISH_VIA_PR is on');
  const githubToken = token(env, 'HELP_GITHUB_TOKEN');
  const pathPattern = (env.HELP_GITHUB_PATH || 'docs/{version}').replace(/^\/+|\/+$/g, '');
  if (!pathPattern.includes('{version}') || pathPattern.split('/').some((p) => p === '..' || p === '.')) {
    throw new ConfigError('HELP_GITHUB_PATH must contain {version} and no "." or ".." segments');
  }
  const apiUrl = webUrl('HELP_GITHUB_API_URL', env.HELP_GITHUB_API_URL || 'https://api.github.com', 'https://github.example.com/api/v3').toString().replace(/\/$/, '');
  return {
    owner: m[1],
    repo: m[2],
    token: githubToken,
    apiUrl,
    baseBranch: branchName(env.HELP_GITHUB_BASE_BRANCH || 'main'),
    pathPattern,
    webhookSecret: env.HELP_GITHUB_WEBHOOK_SECRET || null,
  };
}

const flag = (env: NodeJS.ProcessEnv, name: string, fallback: boolean) => onOff(env, name, fallback, (message) => new ConfigError(message));

const list = (raw: string | undefined, fallback: string[]) => {
  const values = (raw ?? '').split(',').map((v) => v.trim()).filter(Boolean);
  return values.length > 0 ? values : fallback;
};

function upstreamConfig(env: NodeJS.ProcessEnv): UpstreamConfig | null {
  if (!env.HELP_OIDC_ISSUER) return null;
  const issuer = webUrl('HELP_OIDC_ISSUER', env.HELP_OIDC_ISSUER, 'https://login.example.com/realms/staff', true);
  if (!env.HELP_OIDC_CLIENT_ID || !env.HELP_OIDC_CLIENT_SECRET) throw new ConfigError('HELP_OIDC_CLIENT_ID and HELP_OIDC_CLIENT_SECRET are required when HELP_OIDC_ISSUER is set');
  return {
    issuer: issuer.href.replace(/\/$/, ''),
    clientId: env.HELP_OIDC_CLIENT_ID,
    clientSecret: env.HELP_OIDC_CLIENT_SECRET,
    name: env.HELP_OIDC_NAME || issuer.host,
    roleClaim: env.HELP_OIDC_ROLE_CLAIM || 'groups',
    adminValues: list(env.HELP_OIDC_ADMIN_VALUES, ['admin']),
    editorValues: list(env.HELP_OIDC_EDITOR_VALUES, ['editor']),
  };
}

function oauthConfig(env: NodeJS.ProcessEnv): OAuthConfig {
  return {
    accessTokenTtl: integer(env, 'HELP_OAUTH_ACCESS_TOKEN_TTL', 3600, 1, 86_400),
    refreshTokenTtl: integer(env, 'HELP_OAUTH_REFRESH_TOKEN_TTL', 30 * 86_400, 3600, 365 * 86_400),
    adminPublishes: flag(env, 'HELP_OAUTH_ADMIN_PUBLISHES', false),
    loginLimit: integer(env, 'HELP_RATE_LIMIT_LOGIN', 10, 1, 100_000),
    tokenLimit: integer(env, 'HELP_RATE_LIMIT_TOKEN', 60, 1, 1_000_000),
    registerLimit: integer(env, 'HELP_RATE_LIMIT_REGISTER', 20, 1, 1_000_000),
    clientIdleDays: integer(env, 'HELP_OAUTH_CLIENT_IDLE_DAYS', 90, 0, 36_500),
    storeBytes: integer(env, 'HELP_OAUTH_STORE_MB', 64, 1, 1024 * 1024) * 1024 * 1024,
    upstream: upstreamConfig(env),
  };
}

/** Paths the service itself answers, which the portal's and the tool server's paths must stay out of. */
const RESERVED_PATHS = ['/help', '/oauth', '/.well-known', '/healthz', '/metrics'];

/**
 * A path the service mounts something on: plain segments, none of them `.` or `..` (a browser or
 * proxy resolves `/a/..` to `/`, so pages under it would be asked for at paths that are not theirs).
 */
const isPlainPath = (path: string) => /^(\/[A-Za-z0-9._~-]+)+$/.test(path) && !path.split('/').some((p) => p === '.' || p === '..');
const PLAIN_SEGMENTS = 'segments of letters, digits, ".", "_", "~" or "-", none of them "." or ".."';

function portalConfig(env: NodeJS.ProcessEnv, mcp: string): PortalConfig {
  const raw = env.HELP_PORTAL_PATH;
  const path = (raw || '/support').replace(/\/+$/, '');
  if (!isPlainPath(path)) throw new ConfigError(`HELP_PORTAL_PATH must be a path such as /support (${PLAIN_SEGMENTS}), not ${JSON.stringify(raw)}`);
  const clash = [...RESERVED_PATHS, mcp].find((p) => path === p || path.startsWith(`${p}/`) || p.startsWith(`${path}/`));
  if (clash) throw new ConfigError(`HELP_PORTAL_PATH must stay out of ${clash}: the service answers there (it also answers ${[...RESERVED_PATHS, mcp].filter((p) => p !== clash).join(', ')}); got ${JSON.stringify(raw)}`);
  const title = (env.HELP_PORTAL_TITLE ?? '').trim() || 'Help';
  if (title.length > 100) throw new ConfigError('HELP_PORTAL_TITLE must be at most 100 characters');
  let logo: string | null = null;
  if (env.HELP_PORTAL_LOGO) {
    const value = env.HELP_PORTAL_LOGO.trim();
    // A path on this origin, or an https URL (the pages' policy allows images from https origins only).
    const ok = /^\/(?!\/)[^\s"'<>\\]*$/.test(value) || (URL.canParse(value) && new URL(value).protocol === 'https:');
    if (!ok) throw new ConfigError(`HELP_PORTAL_LOGO must be an https URL or a path starting with /, not ${JSON.stringify(value)}`);
    logo = value;
  }
  const listed = (env.HELP_PORTAL_VERSIONS ?? '').trim().toLowerCase();
  let versions: PortalConfig['versions'] = 'all';
  if (listed === 'latest') versions = 'latest';
  else if (listed !== '' && listed !== 'all') {
    const slugs = list(listed, []);
    if (slugs.length === 0) throw new ConfigError(`HELP_PORTAL_VERSIONS takes all, latest or version slugs separated by commas; ${JSON.stringify(env.HELP_PORTAL_VERSIONS)} names none`);
    const bad = slugs.find((s) => !/^[a-z0-9]+(?:[._-][a-z0-9]+)*$/.test(s));
    if (bad !== undefined) throw new ConfigError(`HELP_PORTAL_VERSIONS takes all, latest or version slugs separated by commas; ${JSON.stringify(bad)} is not a slug`);
    versions = Object.freeze(slugs);
  }
  return Object.freeze({ path, title, logo, versions, accent: portalAccent(env.HELP_PORTAL_ACCENT), favicon: portalFavicon(env.HELP_PORTAL_FAVICON) });
}

/** HELP_PORTAL_ACCENT: refused when links in it would be hard to read on the light background. */
function portalAccent(raw: string | undefined): PortalConfig['accent'] {
  if (raw === undefined || raw.trim() === '') return null;
  const rgb = parseHex(raw);
  if (rgb === null) throw new ConfigError(`HELP_PORTAL_ACCENT must be a hex colour such as #0b57c2, not ${JSON.stringify(raw)}`);
  const ratio = contrast(rgb, parseHex(LIGHT_BACKGROUND)!);
  if (ratio < AA_RATIO) {
    throw new ConfigError(`HELP_PORTAL_ACCENT ${raw.trim()} has a contrast of ${(Math.floor(ratio * 100) / 100).toFixed(2)}:1 against the light background ${LIGHT_BACKGROUND}; WCAG AA needs at least ${AA_RATIO}:1 for text: choose a darker colour`);
  }
  const dark = darkVariant(rgb);
  return Object.freeze({ light: toHex(rgb), dark: toHex(dark), lightText: textOn(rgb), darkText: textOn(dark) });
}

/** HELP_PORTAL_FAVICON: a readable .svg, .png or .ico file. */
function portalFavicon(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  const file = resolve(raw.trim());
  if (!/\.(svg|png|ico)$/i.test(file)) throw new ConfigError(`HELP_PORTAL_FAVICON must name an .svg, .png or .ico file, not ${JSON.stringify(raw)}`);
  let isFile = false;
  try {
    accessSync(file, constants.R_OK);
    isFile = statSync(file).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) throw new ConfigError(`HELP_PORTAL_FAVICON names ${file}, which is not a readable file`);
  return file;
}

/** HELP_FONT_DIR: an existing folder, so that a mistyped path stops the start instead of leaving PDFs without their fonts. */
function fontDir(raw: string | undefined): string | null {
  if (!raw) return null;
  const dir = resolve(raw);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new ConfigError(`HELP_FONT_DIR must be a folder of font files; ${JSON.stringify(raw)} is not a folder`);
  return dir;
}

function originList(name: string, raw: string | undefined): ReadonlySet<string> {
  const origins = new Set<string>();
  for (const value of (raw ?? '').split(',').map((v) => v.trim()).filter(Boolean)) {
    let origin: string | null = null;
    try {
      origin = new URL(value).origin;
    } catch {
      origin = null;
    }
    // An origin is scheme, host and port only: "https://app.example.com", never a path or "*".
    if (origin === null || origin === 'null' || origin !== value.replace(/\/$/, '')) {
      throw new ConfigError(`${name} takes origins such as https://app.example.com, separated by commas; ${JSON.stringify(value)} is not one`);
    }
    origins.add(origin);
  }
  return origins;
}

/** A path of its own for the tool server: one or more plain segments, not below the API or the service's own paths. */
function mcpPath(raw: string | undefined): string {
  const path = raw || '/mcp';
  if (!isPlainPath(path)) throw new ConfigError(`HELP_MCP_PATH must be a path such as /mcp (${PLAIN_SEGMENTS}), not ${JSON.stringify(path)}`);
  const taken = RESERVED_PATHS.find((p) => path === p || path.startsWith(`${p}/`));
  if (taken) throw new ConfigError(`HELP_MCP_PATH must not be ${taken} or below it: that path belongs to the service`);
  return path;
}

/**
 * An http(s) URL from the environment (`secure`: https unless its host is the machine itself).
 * `new URL("help.example.com:8080")` parses, with "help.example.com:" as its scheme: such a value
 * started the service with an origin of "null".
 */
function webUrl(name: string, raw: string, example: string, secure = false): URL {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new ConfigError(`${name} must be a URL with http:// or https://, such as ${example}, not ${JSON.stringify(raw)}`);
  }
  // Not quoted: what is before the @ is a secret.
  if (url.username !== '' || url.password !== '') throw new ConfigError(`${name} must not hold a user name or password before its host (user:password@); give credentials in their own setting`);
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\./.test(url.hostname);
  if (secure && url.protocol !== 'https:' && !loopback) throw new ConfigError(`${name} must use https:// (http:// only on this machine: localhost or 127.0.0.1), not ${JSON.stringify(raw)}`);
  return url;
}

/** A branch name git takes (git check-ref-format's rules, in short): refused at start, not at the first publish request. */
function branchName(raw: string): string {
  const bad = /[\s~^:?*[\\\x00-\x1f\x7f]|\.\.|@\{|\/\/|^[/.-]|[/.]$|\.lock$|\/\./.test(raw) || raw === '@';
  if (bad) throw new ConfigError(`HELP_GITHUB_BASE_BRANCH must be a branch name such as main or docs/live (no spaces, no ~ ^ : ? * [ or \\, no "..", not starting with - . or /), not ${JSON.stringify(raw)}`);
  return raw;
}

/**
 * HELP_TRUSTED_PROXIES: a number of hops (the proxies in front of the service, each adding the
 * address it was reached from), or addresses and CIDR ranges separated by commas.
 */
function trustedProxies(raw: string | undefined): TrustedProxies {
  const value = (raw ?? '').trim();
  if (value === '') return { kind: 'none' };
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops < 1 || hops > 10) throw new ConfigError(`HELP_TRUSTED_PROXIES as a number of hops must be from 1 to 10, not ${value}`);
    return { kind: 'hops', hops };
  }
  const ranges = value.split(',').map((v) => v.trim()).filter(Boolean);
  const bad = ranges.find((r) => !isAddressRange(r));
  if (bad !== undefined) throw new ConfigError(`HELP_TRUSTED_PROXIES takes a number of hops, or IP addresses and CIDR ranges separated by commas (such as 10.0.0.0/8,::1); ${JSON.stringify(bad)} is neither`);
  return { kind: 'list', ranges: Object.freeze(ranges) };
}

function isAddressRange(range: string): boolean {
  const [address, bits, ...rest] = range.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

const integer = (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number) => whole(env, name, fallback, min, max, (message) => new ConfigError(message));

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const sample = env.HELP_SAMPLE_CONTENT || resolve(PROJECT_ROOT, 'content-sample');
  const publicUrl = env.HELP_PUBLIC_URL ? webUrl('HELP_PUBLIC_URL', env.HELP_PUBLIC_URL, 'https://help.example.com').origin : null;
  const mcp = mcpPath(env.HELP_MCP_PATH);
  return Object.freeze({
    publicUrl,
    portal: portalConfig(env, mcp),
    publishing: publishingConfig(env),
    webhooks: webhookConfig(env, (message) => new ConfigError(message)),
    replica: replicaConfig(env, (message) => new ConfigError(message)),
    feedback: feedbackConfig(env, (message) => new ConfigError(message)),
    oauth: oauthConfig(env),
    corsOrigins: originList('HELP_CORS_ORIGINS', env.HELP_CORS_ORIGINS),
    mcpPath: mcp,
    mcpAllowedOrigins: originList('HELP_MCP_ALLOWED_ORIGINS', env.HELP_MCP_ALLOWED_ORIGINS),
    mcpAnswerChars: integer(env, 'HELP_MCP_ANSWER_MCHARS', 4, 1, 1_000) * 1_000_000,
    mcpCallerChars: integer(env, 'HELP_MCP_CALLER_MCHARS', 64, 1, 100_000) * 1_000_000,
    mcpConcurrency: integer(env, 'HELP_MCP_CONCURRENCY', 16, 1, 10_000),
    mcpConcurrencyPerAddress: integer(env, 'HELP_MCP_CONCURRENCY_PER_ADDRESS', 4, 1, 10_000),
    trustedProxies: trustedProxies(env.HELP_TRUSTED_PROXIES),
    connectionsPerAddress: integer(env, 'HELP_CONNECTIONS_PER_ADDRESS', 64, 1, 1_000_000),
    requestTimeoutSeconds: integer(env, 'HELP_REQUEST_TIMEOUT', 60, 1, 3600),
    gitConcurrency: integer(env, 'HELP_GIT_CONCURRENCY', 8, 1, 1000),
    gitConcurrencyPerAddress: integer(env, 'HELP_GIT_CONCURRENCY_PER_ADDRESS', 4, 1, 1000),
    gitTimeoutSeconds: integer(env, 'HELP_GIT_TIMEOUT', 600, 1, 86_400),
    gitPushMaxMb: integer(env, 'HELP_GIT_PUSH_MAX_MB', 50, 1, 10_000),
    metricsToken: env.HELP_METRICS_TOKEN ? token(env, 'HELP_METRICS_TOKEN') : null,
    gcEvery: integer(env, 'HELP_GC_EVERY', 500, 0, 1_000_000),
    repackShare: integer(env, 'HELP_REPACK_PERCENT', 10, 0, 1000) / 100,
    indexWorkers: integer(env, 'HELP_INDEX_WORKERS', Math.min(availableParallelism(), 64), 0, 64),
    indexWorkersMinChars: integer(env, 'HELP_INDEX_WORKERS_MIN_MCHARS', 32, 0, 1_000_000) * 1_000_000,
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(env.HELP_DATA_DIR || 'data'),
    sampleContentDir: sample === 'off' ? null : resolve(sample),
    fontDir: fontDir(env.HELP_FONT_DIR),
    cacheMaxAge: integer(env, 'HELP_CACHE_MAX_AGE', 60, 0, 31_536_000),
    bodyLimit: integer(env, 'HELP_BODY_LIMIT', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    exportCacheBytes: integer(env, 'HELP_EXPORT_CACHE_MB', 256, 0, 1024 * 1024) * 1024 * 1024,
    answerCacheBytes: integer(env, 'HELP_ANSWER_CACHE_MB', 64, 0, 1024 * 1024) * 1024 * 1024,
    searchCacheBytes: integer(env, 'HELP_SEARCH_CACHE_MB', 80, 0, 1024 * 1024) * 1024 * 1024,
    logLevel,
    basePath: '/help/v1' as const,
    ...overrides,
  });
}
