import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { invalid } from '../errors.ts';
import { check, checkQuery } from '../schemas/registry.ts';
import { requireCredential, requireScope, type Actor } from './actor.ts';
import { refuseEntityTagConditions } from './preconditions.ts';
import { jsonBodyParser, parseJsonText } from './body.ts';
import { anonymousWithoutBody, type ResponseCache } from './cache.ts';
import { PATH_PARAMS, type EndpointDoc } from '../schemas/endpoint.ts';

export type { Access, EndpointDoc, Method, ResponseDoc } from '../schemas/endpoint.ts';

export interface ApiRequest<B = unknown, Q = Record<string, string>> {
  ctx: Context;
  actor: Actor | null;
  params: Record<string, string>;
  query: Q;
  body: B;
}

export interface ApiResponse {
  status?: number;
  body: unknown;
  /** Headers of the answer besides those every answer gets (e.g. `Link`); cached with the body. */
  headers?: Record<string, string>;
}

/** One endpoint: its route, its schemas and its documentation in one place; openapi.json is built from these. */
export interface Endpoint<B = any, Q = any> extends EndpointDoc {
  /**
   * Checks that come before the body's shape, on the raw request (a webhook's signature over its
   * raw body): a sender who cannot sign learns nothing of what the body should hold.
   */
  verify?: (ctx: Context) => void;
  handle: (req: ApiRequest<B, Q>) => Promise<ApiResponse> | ApiResponse;
}

/** Declares an endpoint (the identity function, for type inference). */
export const endpoint = <B = any, Q = any>(e: Endpoint<B, Q>): Endpoint<B, Q> => e;

/**
 * Mounts endpoints on a router: access check → body parsing (within the endpoint's limit) →
 * path/query/body validation → handler → status and body.
 */
export function mount(router: Router, endpoints: readonly Endpoint[], defaultBodyLimit: number, cache?: ResponseCache): void {
  for (const e of endpoints) {
    const parse = e.body ? jsonBodyParser(e.bodyLimit ?? defaultBodyLimit, e.rawBody) : null;
    router[e.method](e.path, async (ctx: Context, next) => {
      const actor = (ctx.state.actor ?? null) as Actor | null;
      if (e.access === 'write') {
        requireScope(actor, 'help:write');
        refuseEntityTagConditions(ctx);
      } else if (e.access === 'credential') requireCredential(actor);
      if (parse) await parse(ctx, next);
      else await next();
    }, (ctx: Context) => answer(e, ctx, (ctx.state.actor ?? null) as Actor | null, ctx.params as Record<string, string>, cache));
  }
}

/** Validates the path, query and body of a request routed to `e`, runs its handler and answers (through the cache when `e` is cacheable). */
async function answer(e: Endpoint, ctx: Context, actor: Actor | null, rawParams: Record<string, string>, cache: ResponseCache | undefined): Promise<void> {
  const params: Record<string, string> = {};
  for (const name in rawParams) {
    const value = rawParams[name];
    params[name] = value;
    const schema = e.params?.[name] ?? PATH_PARAMS[name]?.schema;
    if (schema) check(schema, value, `path/${name}`);
  }
  const query = e.query ? checkQuery<Record<string, string>>(e.query, queryObject(ctx)) : {};
  if (e.rawBody) ctx.state.rawBody = ctx.request.rawBody ?? '';
  e.verify?.(ctx);
  if (e.rawBody && e.body) ctx.request.body = parseJsonText(ctx.request.rawBody ?? '');
  const body = e.body ? check(e.body, wellFormed(ctx.request.body ?? {}, 'body'), 'body') : undefined;
  const run = async () => e.handle({ ctx, actor, params, query, body });
  if (e.cache && cache) return cache.serve(ctx, actor, run);
  const res = await run();
  if (res.headers) ctx.set(res.headers);
  ctx.status = res.status ?? 200;
  if (cache === undefined || !isPlainJson(res.body)) ctx.body = res.body;
  else {
    // The bytes Koa would send, but a long text the answer marks (a body a write echoes) is encoded in slices.
    ctx.body = await cache.encode(res.body);
    ctx.type = 'application/json';
  }
}

/** An object or array literal: what Koa would answer as JSON (not bytes, a string or a stream). */
const isPlainJson = (body: unknown): boolean => typeof body === 'object' && body !== null && (Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype);

/**
 * Anonymous GETs of the cacheable public endpoints (a help page, a tree, a search), answered by the
 * same endpoint code without the rest of the stack: without a credential or a body, sign-in,
 * authentication and body parsing have nothing to do, and the router's walk over every route is
 * replaced by a lookup by segment count. What these answers cost when the answer cache misses is
 * then mostly the endpoint's own work. A request this cannot match exactly as the router would
 * (another method, a trailing slash, other letter case, a bad escape) takes the full path.
 */
export function anonymousReads(basePath: string, endpoints: readonly Endpoint[], cache: ResponseCache): Middleware {
  // The router runs the first route registered that matches; only GET routes can match a GET.
  const bySegments = new Map<number, Array<{ e: Endpoint; segments: string[]; route: string }>>();
  for (const e of endpoints) {
    if (e.method !== 'get') continue;
    const segments = e.path.split('/').slice(1);
    const list = bySegments.get(segments.length) ?? [];
    list.push({ e, segments, route: `${basePath}${e.path}` });
    bySegments.set(segments.length, list);
  }
  const prefix = `${basePath}/`;
  return (ctx, next) => {
    if (ctx.method !== 'GET' || !anonymousWithoutBody(ctx)) return next();
    const path = ctx.path;
    if (!path.startsWith(prefix)) return next();
    const parts = path.slice(prefix.length).split('/');
    for (const { e, segments, route } of bySegments.get(parts.length) ?? []) {
      const params = matchSegments(segments, parts);
      if (params === undefined) continue;
      if (params === null || !e.cache || e.access !== 'public' || e.body) return next();
      ctx.params = params;
      ctx.state.actor = null;
      ctx.state.route = route;
      return answer(e, ctx, null, params, cache);
    }
    return next();
  };
}

/** The route's parameters when `parts` match its segments; undefined when they do not, null when the router must decide (an empty or undecodable segment). */
function matchSegments(segments: readonly string[], parts: readonly string[]): Record<string, string> | undefined | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const part = parts[i];
    if (part === '') return null;
    if (segment.charCodeAt(0) !== 58 /* : */) {
      if (segment !== part) return undefined;
      continue;
    }
    try {
      params[segment.slice(1)] = part.includes('%') ? decodeURIComponent(part) : part;
    } catch {
      return null;
    }
  }
  return params;
}

/**
 * The query string as single values; a repeated parameter keeps its last value, and is named in
 * `repeated` when its values differ. Parsed as Koa's `ctx.query` parses it (URLSearchParams),
 * without the object of arrays it builds first.
 */
function queryObject(ctx: Context): { values: Record<string, string>; repeated: Set<string> } {
  const out: Record<string, string> = {};
  const repeated = new Set<string>();
  // URLSearchParams puts U+FFFD in place of escapes that are no UTF-8 (%ED%A0%80, %FF): refused instead.
  if (ctx.querystring.includes('%')) {
    for (const pair of ctx.querystring.split('&')) {
      const at = pair.indexOf('=');
      const name = at < 0 ? pair : pair.slice(0, at);
      for (const part of [name, at < 0 ? '' : pair.slice(at + 1)]) {
        try {
          decodeURIComponent(part);
        } catch {
          throw invalid(`query/${safeName(name)}`, 'is not UTF-8 once its %-escapes are decoded (escape each byte of the UTF-8 encoding, such as %C3%A9 for é)');
        }
      }
    }
  }
  for (const [k, v] of new URLSearchParams(ctx.querystring)) {
    if (Object.hasOwn(out, k) && out[k] !== v) repeated.add(k);
    // An own property, as Koa makes it, not the object's prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, writable: true, enumerable: true, configurable: true });
    else out[k] = v;
  }
  return { values: out, repeated };
}

/** A parameter's name for an error: decoded when it can be, at most 40 characters. */
function safeName(raw: string): string {
  let name = raw;
  try {
    name = decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    // named as sent
  }
  return name.slice(0, 40);
}

/** Deepest nesting of arrays and objects a request body may have; no endpoint's schema needs more than 8. */
export const MAX_BODY_DEPTH = 64;

/**
 * Walks a parsed body once, without recursion (a body nested thousands of levels deep must not
 * overflow the stack), and refuses what cannot be stored faithfully: nesting deeper than
 * MAX_BODY_DEPTH, and strings with lone surrogates, which cannot be stored as UTF-8, so the file
 * in git would differ from what the index holds. Field paths are built only for the answer.
 */
export function wellFormed<T>(value: T, field: string): T {
  type Item = { value: unknown; depth: number; parent: Item | null; key: string };
  const pathOf = (item: Item): string => {
    const keys: string[] = [];
    for (let at: Item | null = item; at !== null; at = at.parent) keys.push(at.key);
    return keys.reverse().join('/');
  };
  const stack: Item[] = [{ value, depth: 0, parent: null, key: field }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const v = item.value;
    if (typeof v === 'string') {
      if (!v.isWellFormed()) throw invalid(pathOf(item), 'contains a lone surrogate (not valid Unicode text)');
    } else if (v !== null && typeof v === 'object') {
      if (item.depth === MAX_BODY_DEPTH) throw invalid(pathOf(item), `is nested deeper than ${MAX_BODY_DEPTH} levels of arrays and objects`);
      const entries: Array<[string, unknown]> = Array.isArray(v) ? v.map((e, i) => [String(i), e]) : Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i][1], depth: item.depth + 1, parent: item, key: entries[i][0] });
    }
  }
  return value;
}
