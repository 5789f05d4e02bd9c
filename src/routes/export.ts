import { endpoint } from '../http/api.ts';
import { etagOf, matches, setValidators, visibilityOf } from '../http/cache.ts';
import { ExportCache } from '../http/export-cache.ts';
import { textStream } from '../http/stream.ts';
import { readerOf } from '../http/actor.ts';
import { readableVersion } from '../queries/versions.ts';
import { exportDocument, exportFiles, exportParts } from '../presenters/export.ts';
import type { Deps } from '../deps.ts';

/** Whole-version export, as the JSON document or as content files. */
export function exportRoutes({ catalog, config, replication }: Deps) {
  const cache = new ExportCache(config.exportCacheBytes);
  return [
    endpoint<unknown, { format?: 'json' | 'files' }>({
      method: 'get',
      path: '/versions/:version/export',
      operationId: 'exportVersion',
      summary: 'Export a whole version',
      description:
        'Default: the export document `{ version, nodes }`, nodes in document order with every translation and body. `format=files`: `{ files: [{ path, content }] }`, the version as content files, exactly what import-files accepts. ' +
        'Sent gzip-compressed (`Content-Encoding: gzip`, compressed once per change of the version) to clients that accept it, else streamed uncompressed. Weak `ETag`; `If-None-Match` gets 304.',
      tag: 'Import and export',
      access: 'public',
      query: 'ExportQuery',
      errors: ['not_found'],
      responses: { 200: { description: 'The export document, or the files with `format=files`', schema: 'ExportResult' }, 304: { description: 'Not modified (`If-None-Match` matched)' } },
      handle: ({ ctx, actor, params, query }) => {
        const state = readableVersion(catalog, readerOf(actor), params.version);
        const format = query.format === 'files' ? 'files' : 'json';
        // The version folder's tree: writes to other versions leave its exports (and their validators) as they are, and every replica gives the same validator.
        const stamp = `${replication.tags.version(state.slug)}|export:${state.slug}`;
        const visibility = visibilityOf(actor);
        const etag = etagOf(stamp, visibility, ctx);
        setValidators(ctx, visibility, etag, config.cacheMaxAge, 'Authorization, Accept-Encoding');
        if (matches(ctx, etag)) return { status: 304, body: null };
        ctx.type = 'application/json';
        if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
          ctx.set('Content-Encoding', 'gzip');
          return { body: cache.gzip(`${state.slug}|${format}`, stamp, () => (format === 'files' ? { pieces: exportFiles(state) } : exportParts(state))) };
        }
        return { body: textStream(format === 'files' ? exportFiles(state) : exportDocument(state)) };
      },
    }),
  ];
}
