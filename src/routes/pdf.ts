import { createReadStream } from 'node:fs';
import { versionLanguage } from '../domain/translations.ts';
import { AppError, notFound } from '../errors.ts';
import { endpoint, type Method } from '../http/api.ts';
import { language } from '../http/languages.ts';
import { readerOf } from '../http/actor.ts';
import { versionByRef } from '../queries/versions.ts';
import { buildPdfBundle } from '../pdf/bundle.ts';
import { selectForPdf } from '../pdf/selection.ts';
import type { Deps } from '../deps.ts';
import type { Reader } from '../queries/reader.ts';

/** whoami's tag too (routes/identity.ts): an "Identity" tag beside "Identity and PDF" read as one on the reference page. */
const TAG = 'Identity and PDF';

const retired = (method: Method) =>
  endpoint({
    method,
    path: '/versions/:version/pdf',
    operationId: `${method}PdfRetired`,
    summary: 'Retired: PDFs are rendered in the browser from the pdf-bundle',
    tag: TAG,
    deprecated: true,
    access: 'public',
    errors: ['gone'],
    responses: {},
    handle: ({ params }) => {
      throw new AppError('gone', 'Server-side PDF rendering is retired; fetch the data bundle and render it in the browser', {
        use: `/help/v1/versions/${params.version}/pdf-bundle`,
      });
    },
  });

export interface PdfSelection {
  lang?: string;
  /** Comma-separated slugs. */
  topics?: string;
  /** 1 to 200, as digits. */
  limit?: string;
}

/**
 * The PDF bundle as the API answers it, for the route and the tool server alike: `version` may be
 * `latest`; font URLs start at `origin`; `at` is where the selection came from (`query`, `arguments`), for errors.
 */
export function pdfBundle({ catalog, config, clock, fonts }: Pick<Deps, 'catalog' | 'config' | 'clock' | 'fonts'>, reader: Reader, version: string, selection: PdfSelection, origin: string, at: string) {
  const asked = selection.lang === undefined ? undefined : language(selection.lang, `${at}/lang`);
  const state = versionByRef(catalog, reader, version);
  const lang = versionLanguage(state, asked, `${at}/lang`);
  const topics = selection.topics ? [...new Set(selection.topics.split(','))] : null;
  const chosen = selectForPdf(state, topics, selection.limit ? Number(selection.limit) : null);
  return buildPdfBundle(state, lang, chosen, `${origin}${config.basePath}/fonts`, clock.time().slice(0, 10), fonts);
}

/** The PDF data bundle, the fonts it names, and the retired server-side PDF endpoints. */
export function pdfRoutes({ catalog, config, clock, fonts }: Deps) {
  return [
    endpoint<unknown, PdfSelection>({
      method: 'get',
      path: '/versions/:version/pdf-bundle',
      operationId: 'getPdfBundle',
      cache: true,
      summary: 'Everything a browser needs to render a PDF of a version or of chosen topics',
      description:
        '`latest` may stand for the slug. Topics are resolved to document order; sections bring their descendants; ancestors of chosen topics appear as chapter headings. At most 200 topics.',
      tag: TAG,
      access: 'public',
      params: { version: 'VersionRef' },
      query: 'PdfBundleQuery',
      errors: ['not_found', 'invalid_selection', 'language_not_enabled'],
      responses: { 200: { description: 'The bundle', schema: 'PdfBundle' } },
      handle: ({ ctx, actor, params, query }) => {
        // Behind a shared cache, set HELP_PUBLIC_URL so that the URLs do not follow the caller's Host header.
        const origin = config.publicUrl ?? `${ctx.protocol}://${ctx.host}`;
        return { body: pdfBundle({ catalog, config, clock, fonts }, readerOf(actor), params.version, query, origin, 'query') };
      },
    }),
    endpoint({
      method: 'get',
      path: '/fonts/:file',
      operationId: 'getFont',
      summary: 'A font file named by a PDF bundle (TrueType)',
      description: 'Only the families installed are served: without `HELP_FONT_DIR`, a production install has no Japanese, Chinese or Korean font, and bundles list those languages in `uncoveredLanguages`.',
      tag: TAG,
      access: 'public',
      errors: ['not_found'],
      responses: { 200: { description: 'The font (font/ttf), cacheable for a year' } },
      handle: ({ ctx, params }) => {
        const font = fonts.files.get(params.file);
        if (!font) throw notFound('route', `No font "${params.file}"`);
        ctx.type = 'font/ttf';
        ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
        return { body: createReadStream(font.path) };
      },
    }),
    retired('get'),
    retired('post'),
  ];
}
