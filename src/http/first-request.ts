import type { Context, Middleware } from 'koa';
import { onFirstUse } from '../first-use.ts';

/**
 * Middleware built by the first request it `applies` to (see first-use.ts: one shared load, retried
 * after a failure, which answers `component_unavailable`). Other requests pass by without loading it.
 */
export function builtOnFirstRequest(component: string, applies: (ctx: Context) => boolean, build: () => Promise<Middleware>): Middleware {
  const load = onFirstUse(component, build);
  return async (ctx, next) => {
    if (!applies(ctx)) return next();
    const handle = await load();
    return handle(ctx, next);
  };
}
