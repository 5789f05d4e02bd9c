import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context } from 'koa';
import { endpoint } from '../http/api.ts';

const TAG = 'Meta';
const require = createRequire(import.meta.url);

/** Swagger UI's prebuilt files, read once on first use and served by the service itself (no CDN). */
const assets = new Map<string, Buffer>();
function asset(file: string): Buffer {
  let bytes = assets.get(file);
  if (bytes === undefined) {
    bytes = readFileSync(join(dirname(require.resolve('swagger-ui-dist/package.json')), file));
    assets.set(file, bytes);
  }
  return bytes;
}

/**
 * The page loads only same-origin scripts (no inline script: the set-up is its own file) and talks
 * only to this service; Swagger UI sets element styles, hence inline styles.
 */
const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const page = (base: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Help Content API reference</title>
<link rel="icon" type="image/png" href="${base}/docs/favicon-32x32.png">
<link rel="stylesheet" href="${base}/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="${base}/docs/swagger-ui-bundle.js"></script>
<script src="${base}/docs/reference.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to a public validator for its badge.
const setup = (base: string) => `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '${base}/openapi.json', dom_id: '#reference', deepLinking: true, validatorUrl: null, tryItOutEnabled: false, persistAuthorization: false });
});
`;

function send(ctx: Context, type: string, body: string | Buffer, maxAge: number) {
  ctx.type = type;
  ctx.set('Cache-Control', `public, max-age=${maxAge}`);
  return { body };
}

/** The API's front door: an index of where things are, and an interactive reference built from openapi.json. */
export function referenceRoutes(basePath: string) {
  return [
    endpoint({
      method: 'get',
      path: '/',
      operationId: 'getApiIndex',
      summary: 'Where the API reference, the OpenAPI document and the health check are',
      tag: TAG,
      access: 'public',
      errors: [],
      responses: { 200: { description: 'Links to the reference page, openapi.json, /healthz and /metrics', schema: 'ApiIndex' } },
      handle: () => ({
        body: {
          name: 'Help Content API',
          apiVersion: '1.0.0',
          links: { docs: `${basePath}/docs`, openapi: `${basePath}/openapi.json`, healthz: '/healthz', metrics: '/metrics' },
        },
      }),
    }),
    endpoint({
      method: 'get',
      path: '/docs',
      operationId: 'getApiReference',
      summary: 'The interactive API reference (HTML), built from openapi.json',
      tag: TAG,
      access: 'public',
      errors: [],
      responses: { 200: { description: 'The reference page (text/html)' } },
      handle: ({ ctx }) => {
        ctx.set('Content-Security-Policy', PAGE_POLICY);
        ctx.set('Referrer-Policy', 'no-referrer');
        return send(ctx, 'text/html; charset=utf-8', page(basePath), 300);
      },
    }),
    ...[
      ['swagger-ui.css', 'text/css; charset=utf-8', 'getApiReferenceStyles'],
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8', 'getApiReferenceScript'],
      ['favicon-32x32.png', 'image/png', 'getApiReferenceIcon'],
    ].map(([file, type, operationId]) =>
      endpoint({
        method: 'get',
        path: `/docs/${file}`,
        operationId,
        summary: `The reference page's ${file.endsWith('.css') ? 'styles' : file.endsWith('.js') ? 'script' : 'icon'} (Swagger UI, served by the service)`,
        tag: TAG,
        access: 'public',
        documented: false,
        errors: [],
        responses: { 200: { description: file } },
        handle: ({ ctx }) => send(ctx, type, asset(file), 86_400),
      }),
    ),
    endpoint({
      method: 'get',
      path: '/docs/reference.js',
      operationId: 'getApiReferenceSetup',
      summary: "The reference page's set-up script",
      tag: TAG,
      access: 'public',
      documented: false,
      errors: [],
      responses: { 200: { description: 'reference.js' } },
      handle: ({ ctx }) => send(ctx, 'text/javascript; charset=utf-8', setup(basePath), 300),
    }),
  ];
}
