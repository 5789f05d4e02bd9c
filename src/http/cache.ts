import { hash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';
import type { Catalog } from '../store/catalog.ts';
import type { ContentTags } from '../store/content-tags.ts';
import { canReadUnpublished, type Actor } from './actor.ts';
import { JsonEncoder, ownBytes } from './encoded-json.ts';

/** A serialized answer, as it was sent the first time. */
interface CachedAnswer {
  /** The index generation it was built from; an entry of an older generation is a miss. */
  generation: number;
  etag: string;
  /**
   * The JSON as sent, as bytes: encoded once when built (a string body would be measured for its
   * Content-Length and then encoded again as it is written, two passes over a search answer).
   */
  body: Buffer;
  /** The route template that produced it, for metrics of answers served before the router. */
  route: string | undefined;
  /** The endpoint's own headers (e.g. `Link`), sent again with every copy. */
  headers: Record<string, string> | undefined;
}

/** What a lookup found: a current answer, nothing (the answer is built), or the caller's own copy (304). */
export type CacheLookup = 'hit' | 'miss' | 'not_modified';

export type Visibility = 'public' | 'all';

export const visibilityOf = (actor: Actor | null): Visibility => (canReadUnpublished(actor) ? 'all' : 'public');

/**
 * The weak validator of what `ctx`'s URL answers to `visibility` as of `tag` (a content tag:
 * store/content-tags.ts). Generations count from the start of each process, so they key the
 * process's own caches but never a validator: the same content must give the same validator on
 * every replica and after a restart, and changed content another.
 */
export const etagOf = (tag: string, visibility: Visibility, ctx: Context, key = keyOf(visibility, ctx)): string => `W/"${hash('sha1', `${tag}|${key}`, 'base64url')}"`;

/** The validator headers of every cached public read (`vary`: more than Authorization when the answer also varies by something else). */
export function setValidators(ctx: Context, visibility: Visibility, etag: string, maxAge: number, vary = 'Authorization'): void {
  ctx.set('ETag', etag);
  ctx.set('Vary', vary);
  ctx.set('Cache-Control', visibility === 'public' ? `public, max-age=${maxAge}` : 'private, no-cache');
}

/**
 * Public reads are answered from a cache of serialized responses, keyed by the generation of what
 * the answer reads (the version's own for its routes; see generationFor), what the caller may see,
 * and the URL; each answer carries an ETag
 * (a weak validator over the same key), so `If-None-Match` gets a 304 without any work, and
 * `Cache-Control` lets a CDN in front keep anonymous answers for `maxAge` seconds.
 *
 * An anonymous GET/HEAD whose exact URL was answered in this generation is served by `answerAnonymous`
 * before the router, body parsing, validation and authentication: none of them could change its
 * answer, and a hot help page then costs about what sending its bytes costs.
 */
export class ResponseCache {
  /** null when the cache is off (`maxBytes` 0): every answer is built, validators and 304s still work. */
  private readonly lru: LRUCache<string, CachedAnswer> | null;
  private readonly publicControl: string;
  private readonly encoder: JsonEncoder;
  /** Bytes of answers kept at most; a larger answer is not kept (nor copied to be). */
  private readonly keptMax: number;
  /** URLs asked for once and not kept (see admits). */
  private readonly seen: LRUCache<string, true> | null;

  constructor(
    /** The generation the answer at the request's URL depends on (generationFor). */
    private readonly generation: (ctx: Context) => number,
    maxAge: number,
    /** The content tag of what the answer at the request's URL reads (tagFor): what its validator is derived from. */
    private readonly tagOf: (ctx: Context) => string,
    private readonly observe: (lookup: CacheLookup) => void = () => {},
    /** Bytes of answers kept (HELP_ANSWER_CACHE_MB); 0 keeps none. */
    maxBytes = 64 * 1024 * 1024,
    /**
     * What every answer varies by: with `Host` too when the service builds URLs from it (no
     * HELP_PUBLIC_URL), as it keys answers and validators by it (keyOf): a cache in front must not
     * hand one host's URLs to a request for another.
     */
    private readonly vary = 'Authorization',
  ) {
    this.publicControl = `public, max-age=${maxAge}`;
    // A quarter of the memory holds the encoded text of topic bodies (encoded-json.ts), which outlives a version's answers.
    this.keptMax = maxBytes - (maxBytes >> 2);
    this.lru = maxBytes > 0 ? new LRUCache<string, CachedAnswer>({ maxSize: this.keptMax, sizeCalculation: (v, k) => v.body.length + k.length + 128 }) : null;
    this.encoder = new JsonEncoder(maxBytes >> 2);
    this.seen = maxBytes > 0 ? new LRUCache<string, true>({ max: SEEN_URLS }) : null;
  }

  /**
   * The fast path: answers from the cache when the request is an anonymous GET/HEAD without a body
   * whose exact URL has a current entry; false (nothing touched) otherwise.
   */
  answerAnonymous(ctx: Context): boolean {
    const method = ctx.method;
    if (this.lru === null || (method !== 'GET' && method !== 'HEAD')) return false;
    if (!anonymousWithoutBody(ctx)) return false;
    const key = keyOf('public', ctx);
    const entry = this.lru.get(key);
    if (entry === undefined || entry.generation !== this.generation(ctx)) return false;
    ctx.state.route = entry.route;
    this.observe('hit');
    this.send(ctx, 'public', entry.etag, entry.body, entry.headers);
    return true;
  }

  /** The full path (after authentication and validation): answers from the cache, or runs `produce` and keeps its JSON. */
  async serve(ctx: Context, actor: Actor | null, produce: () => Promise<{ status?: number; body: unknown; headers?: Record<string, string> }>): Promise<void> {
    const visibility = visibilityOf(actor);
    const key = keyOf(visibility, ctx);
    const generation = this.generation(ctx);
    const entry = this.lru?.get(key);
    if (entry !== undefined && entry.generation === generation) {
      this.observe('hit');
      return this.send(ctx, visibility, entry.etag, entry.body, entry.headers);
    }
    const etag = etagOf(this.tagOf(ctx), visibility, ctx, key);
    if (matches(ctx, etag)) {
      this.observe('not_modified');
      return this.send(ctx, visibility, etag, null);
    }
    this.observe('miss');
    const res = await produce();
    const serialized = this.encoder.serialize(res.body);
    const pieces = serialized instanceof Promise ? await serialized : serialized;
    const route = ctx.state.route ?? (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
    // The index may have moved on while the answer was built (produce is async): keep it only if not.
    // A URL with an older answer kept was admitted then, and is again.
    if (this.lru !== null && (res.status ?? 200) === 200 && this.generation(ctx) === generation && sizeOf(pieces) <= this.keptMax && (entry !== undefined || this.admits(key))) {
      const body = ownBytes(pieces.length === 1 ? pieces[0] : Buffer.concat(pieces));
      this.lru.set(key, { generation, etag, body, route: typeof route === 'string' ? route : undefined, headers: res.headers });
      return this.send(ctx, visibility, etag, body, res.headers);
    }
    // Not kept: a redirect (an old slug's 301) is answered with its own status.
    this.send(ctx, visibility, etag, pieces, res.headers, res.status);
  }

  /** The JSON of an answer that is not cached (a write's), its long marked strings encoded in slices (encoded-json.ts). */
  async encode(answer: unknown): Promise<Buffer> {
    const pieces = await this.encoder.serialize(answer);
    return pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
  }

  /**
   * An answer is kept the second time its URL is asked for in a while, not the first: URLs asked
   * for once (a crawler's walk, query strings made up to bypass the cache) would otherwise push the
   * pages readers keep asking for out of the cache, and cost a copy each.
   */
  private admits(key: string): boolean {
    if (this.seen!.has(key)) return true;
    this.seen!.set(key, true);
    return false;
  }

  /**
   * Both paths answer through here, so a cached answer carries the same status and headers, in the
   * same order, as the one that filled the cache. `body` null: the caller's `If-None-Match` matched (304).
   */
  private send(ctx: Context, visibility: Visibility, etag: string, body: Buffer | readonly Buffer[] | null, headers?: Record<string, string>, status = 200): void {
    // Straight onto the response: the same headers Koa's setters would write, without their lookups.
    const res = ctx.res;
    if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.setHeader('ETag', etag);
    res.setHeader('Vary', this.vary);
    res.setHeader('Cache-Control', visibility === 'public' ? this.publicControl : 'private, no-cache');
    if (body === null || matches(ctx, etag)) {
      ctx.status = 304;
      return;
    }
    ctx.status = status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    if (Buffer.isBuffer(body) || body.length === 1) {
      ctx.body = Buffer.isBuffer(body) ? body : body[0];
      return;
    }
    // An answer in pieces (a memoized body between the rest) goes out as they are, in one write of
    // the socket (Node corks a response's writes until the next tick), rather than copied into one
    // buffer first: the copy of a 40 KB body cost more than building the rest of its answer.
    const length = sizeOf(body);
    if (body.length > STREAMED_PIECES) {
      // Many pieces (a list of every body of a version): streamed in chunks as the client takes them.
      ctx.body = Readable.from(chunked(body), { objectMode: false });
      ctx.length = length;
      return;
    }
    res.setHeader('Content-Length', length);
    ctx.respond = false;
    if (ctx.method === 'HEAD') {
      res.end();
      return;
    }
    for (let i = 0; i < body.length - 1; i++) res.write(body[i]);
    res.end(body[body.length - 1]);
  }
}

const sizeOf = (pieces: readonly Buffer[]) => pieces.reduce((n, piece) => n + piece.length, 0);

/** An answer in more pieces than this is streamed rather than written at once (a write call each). */
const STREAMED_PIECES = 64;

/** `pieces` joined into chunks of about 64 KB. */
function* chunked(pieces: readonly Buffer[]): Generator<Buffer> {
  let group: Buffer[] = [];
  let size = 0;
  for (const piece of pieces) {
    group.push(piece);
    size += piece.length;
    if (size >= 64 * 1024) {
      yield group.length === 1 ? group[0] : Buffer.concat(group, size);
      group = [];
      size = 0;
    }
  }
  if (group.length > 0) yield Buffer.concat(group, size);
}

/**
 * A request with neither a credential (even a wrong one: that is a 401) nor a body (possibly a 415):
 * nothing past routing can change what it is answered, so it may be answered before the full path.
 */
export function anonymousWithoutBody(ctx: Context): boolean {
  const headers = ctx.req.headers;
  return headers.authorization === undefined && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined;
}

/**
 * What the answer at a URL depends on: the routes below `/versions/{version}/` read that one version
 * (its generation moves only when it changes), the rest (the list of versions, `latest`) every
 * version. A write to one draft then leaves the cached answers of every other version current.
 */
export function generationFor(catalog: Pick<Catalog, 'generation' | 'versionGeneration'>, basePath: string): (ctx: Context) => number {
  const versionOf = versionOfPath(basePath);
  return (ctx) => {
    const slug = versionOf(ctx.path);
    return slug === null ? catalog.generation : catalog.versionGeneration(slug);
  };
}

/** The content tag of what the answer at a URL reads: the version's folder below `/versions/{version}/`, else every version (as generationFor). */
export function tagFor(tags: Pick<ContentTags, 'version' | 'all'>, basePath: string): (ctx: Context) => string {
  const versionOf = versionOfPath(basePath);
  return (ctx) => {
    const slug = versionOf(ctx.path);
    return slug === null ? tags.all() : tags.version(slug);
  };
}

/** The one version whose routes a path is below (not `latest`, which follows every version), or null. */
function versionOfPath(basePath: string): (path: string) => string | null {
  const prefix = `${basePath}/versions/`;
  return (path) => {
    if (!path.startsWith(prefix)) return null;
    const end = path.indexOf('/', prefix.length);
    if (end < 0) return null;
    let slug: string;
    try {
      // The router decodes the slug it hands the route; the scope must be the same version.
      slug = decodeURIComponent(path.slice(prefix.length, end));
    } catch {
      return null;
    }
    return slug === 'latest' ? null : slug;
  };
}

/** How many URLs asked for once are remembered, so that their second request is kept. */
const SEEN_URLS = 16_384;

/** The host is part of the key: without HELP_PUBLIC_URL an answer (the PDF bundle's font URLs) holds it. */
const keyOf = (visibility: Visibility, ctx: Context) => `${visibility}|${ctx.host}|${ctx.url}`;

/** Whether `If-None-Match` names `etag` or is `*` (weak comparison: `W/` does not count, RFC 9110 13.1.2). */
export function matches(ctx: Context, etag: string): boolean {
  const header = ctx.req.headers['if-none-match'];
  if (header === undefined || header === '') return false;
  if (header === etag) return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  return header.split(',').some((v) => {
    const t = v.trim();
    return t === '*' || (t.startsWith('W/') ? t.slice(2) : t) === opaque;
  });
}
