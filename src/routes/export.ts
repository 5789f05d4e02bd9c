import { endpoint } from '../http/api.ts';
import { textStream } from '../http/stream.ts';
import { readableVersion } from '../http/visibility.ts';
import { exportDocument, exportFiles } from '../presenters/export.ts';
import type { Deps } from './deps.ts';

/** Whole-version export, as the JSON document or as content files. */
export function exportRoutes({ catalog }: Deps) {
  return [
    endpoint<unknown, { format?: 'json' | 'files' }>({
      method: 'get',
      path: '/versions/:version/export',
      operationId: 'exportVersion',
      summary: 'Export a whole version',
      description:
        'Default: the export document `{ version, nodes }`, nodes in document order with every translation and body. `format=files`: `{ files: [{ path, content }] }`, the version as content files, exactly what import-files accepts. Streamed.',
      tag: 'Import and export',
      access: 'public',
      query: 'ExportQuery',
      responses: {
        200: { description: 'The export document, or the files with `format=files`', schema: 'ExportResult' },
        404: { description: 'Unknown version (or not published, for anonymous callers)', schema: 'Error' },
      },
      handle: ({ ctx, actor, params, query }) => {
        const state = readableVersion(catalog, params.version, actor);
        ctx.type = 'application/json';
        return { body: textStream(query.format === 'files' ? exportFiles(state) : exportDocument(state)) };
      },
    }),
  ];
}
