import type { Context } from 'koa';
import type { ApiResponse } from '../http/api.ts';
import type { MovedNode } from '../queries/redirects.ts';

/**
 * The 301 of a read of a renamed node's old slug: `Location` is the same URL with the node's slug
 * now in place of the old one (the same query string), and the body names both, for clients that
 * do not follow redirects (or that follow them and want to update a stored link).
 */
export function movedAnswer(ctx: Context, moved: MovedNode): ApiResponse {
  const location = `${withSlug(ctx.path, moved.to)}${ctx.querystring === '' ? '' : `?${ctx.querystring}`}`;
  return { status: 301, headers: { Location: location }, body: { redirect: { ...moved, location } } };
}

/** The path with the segment after `topics` (the node's slug) replaced. */
function withSlug(path: string, slug: string): string {
  const segments = path.split('/');
  const at = segments.indexOf('topics');
  if (at >= 0 && at + 1 < segments.length) segments[at + 1] = slug;
  return segments.join('/');
}
