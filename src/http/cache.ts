import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';
import { canReadUnpublished, type Actor } from './actor.ts';

/**
 * Public reads are answered from a cache of serialized responses, keyed by the index's generation
 * (it moves on every write), what the caller may see, and the URL; each answer carries an ETag
 * (a weak validator over the same key), so `If-None-Match` gets a 304 without any work, and
 * `Cache-Control` lets a CDN in front keep anonymous answers for `maxAge` seconds.
 */
export class ResponseCache {
  private readonly lru = new LRUCache<string, string>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (v) => v.length + 64 });

  constructor(
    private readonly generation: () => number,
    private readonly maxAge: number,
  ) {}

  /** Answers from the cache (or with 304) when it can; else runs `produce` and keeps its JSON. */
  async serve(ctx: Context, actor: Actor | null, produce: () => Promise<{ status?: number; body: unknown }>): Promise<void> {
    const visibility = canReadUnpublished(actor) ? 'all' : 'public';
    const key = `${this.generation()}|${visibility}|${ctx.host}|${ctx.url}`;
    const etag = `W/"${createHash('sha1').update(key).digest('base64url')}"`;
    ctx.set('ETag', etag);
    ctx.set('Vary', 'Authorization');
    ctx.set('Cache-Control', visibility === 'public' ? `public, max-age=${this.maxAge}` : 'private, no-cache');
    if (ctx.get('if-none-match').split(/\s*,\s*/).includes(etag)) {
      ctx.status = 304;
      return;
    }
    let text = this.lru.get(key);
    if (text === undefined) {
      const res = await produce();
      text = JSON.stringify(res.body);
      if ((res.status ?? 200) === 200) this.lru.set(key, text);
    }
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = text;
  }
}
