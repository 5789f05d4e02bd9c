import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context, Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Catalog } from './store/catalog.ts';
import type { TimingSink } from './storage/timing.ts';


/** Request latency buckets, in seconds: cached reads take well under a millisecond, imports seconds. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const STORAGE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The service's Prometheus metrics, in a registry of their own (never prom-client's global one, so two
 * services in one process, as in tests, do not mix). Index sizes are computed when scraped.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Histogram<'method' | 'route' | 'status'>;
  private readonly cache: Counter<'result'>;
  private readonly storage: Histogram<'operation'>;
  private readonly toolCalls: Counter<'tool' | 'outcome'>;

  constructor(catalog: Catalog) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Histogram({
      name: 'help_http_request_duration_seconds',
      help: 'HTTP requests by route template, method and status: latency, and by its _count the number of requests',
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.cache = new Counter({ name: 'help_answer_cache_lookups_total', help: 'Answer-cache lookups of public reads: hit, miss or not_modified (a 304 without work)', labelNames: ['result'], registers });
    this.storage = new Histogram({ name: 'help_storage_duration_seconds', help: 'Storage work: commit (one write made durable), snapshot (a version saved for fast starts), pack_merge, repack (history given its deltas), gc (git gc in the background)', labelNames: ['operation'], buckets: STORAGE_BUCKETS, registers });
    // The outcome is "ok" or an error code of the catalogue, and the tool one the server has: the series stay few.
    this.toolCalls = new Counter({ name: 'help_mcp_tool_calls_total', help: 'Tool-server calls by tool and outcome: ok, or the error code the call was answered with', labelNames: ['tool', 'outcome'], registers });
    new Gauge({ name: 'help_build_info', help: 'The running build: the service version (package.json) and the Node.js version; always 1', labelNames: ['version', 'node'], registers }).set({ version: SERVICE_VERSION, node: process.versions.node }, 1);
    const sizes = (pick: (entry: { nodes: number; translations: number }) => number) => () => {
      let n = 0;
      for (const e of catalog.all()) if (e.state) n += pick({ nodes: e.state.nodes.size, translations: countTranslations(e.state.translations) });
      return n;
    };
    new Gauge({
      name: 'help_index_versions',
      help: 'Versions in the index, by status (broken: stored data that could not be read; loading: not loaded yet at start)',
      labelNames: ['status'],
      registers,
      collect() {
        this.reset();
        for (const e of catalog.all()) this.inc({ status: e.state?.meta.status ?? (e.loading ? 'loading' : 'broken') });
      },
    });
    const nodes = sizes((s) => s.nodes);
    const translations = sizes((s) => s.translations);
    new Gauge({ name: 'help_index_nodes', help: 'Nodes in the index, all versions', registers, collect() { this.set(nodes()); } });
    new Gauge({ name: 'help_index_translations', help: 'Translations in the index, all versions', registers, collect() { this.set(translations()); } });
  }

  /** For the storage layer: records how long a commit, a snapshot or a pack merge took. */
  readonly timing: TimingSink = (what, seconds) => this.storage.observe({ operation: what }, seconds);

  /** For the tool server: one call of a tool, answered (`ok`) or refused with an error code. */
  toolCall(tool: string, outcome: string): void {
    this.toolCalls.inc({ tool, outcome });
  }

  /** For the answer cache. */
  cacheLookup(result: 'hit' | 'miss' | 'not_modified'): void {
    this.cache.inc({ result });
  }

  /**
   * Times every request. The route label is the matched route template (`/help/v1/versions/:version/tree`),
   * never the raw path, so the number of series stays bounded whatever URLs are requested.
   */
  middleware(): Middleware {
    return async (ctx, next) => {
      const end = this.requests.startTimer();
      try {
        await next();
      } finally {
        end({ method: ctx.method, route: routeOf(ctx), status: String(ctx.status) });
      }
    };
  }

  /**
   * `GET /metrics` in Prometheus' text format; with a token configured, only for `Authorization:
   * Bearer <token>` (compared in constant time).
   */
  endpoint(token: string | null): Middleware {
    const expected = token === null ? null : Buffer.from(`Bearer ${token}`);
    return async (ctx) => {
      if (expected !== null) {
        const given = Buffer.from(ctx.get('authorization'));
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          ctx.status = 401;
          ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
          ctx.body = { error: { code: 'unauthorized', message: 'GET /metrics needs Authorization: Bearer <HELP_METRICS_TOKEN>', requestId: ctx.state.requestId } };
          return;
        }
      }
      ctx.set('Content-Type', this.registry.contentType);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await this.registry.metrics();
    };
  }
}

/** The version in package.json, one folder above both src/ and the built dist/. */
export const SERVICE_VERSION = (() => {
  try {
    return String((JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
})();

function countTranslations(translations: ReadonlyMap<string, ReadonlyMap<string, unknown>>): number {
  let n = 0;
  for (const byLanguage of translations.values()) n += byLanguage.size;
  return n;
}

/** The route template that answered, `(cache)` for the answer cache's fast path, `(none)` for unknown paths. */
function routeOf(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (ctx.state.route !== undefined) return ctx.state.route as string;
  return ctx.state.cached ? '(cache)' : '(none)';
}
