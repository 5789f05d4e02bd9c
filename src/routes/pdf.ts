import { AppError } from '../errors.ts';
import { endpoint, type Method } from '../http/api.ts';

const retired = (method: Method) =>
  endpoint({
    method,
    path: '/versions/:version/pdf',
    operationId: `${method}PdfRetired`,
    summary: 'Retired: PDFs are rendered in the browser from the pdf-bundle',
    tag: 'Identity and PDF',
    access: 'public',
    responses: { 410: { description: 'Gone; use GET /versions/{version}/pdf-bundle', schema: 'Error' } },
    handle: ({ params }) => {
      throw new AppError('gone', 'Server-side PDF rendering is retired; fetch the data bundle and render it in the browser', {
        use: `/help/v1/versions/${params.version}/pdf-bundle`,
      });
    },
  });

/** The retired server-side PDF endpoints. */
export const pdfRoutes = () => [retired('get'), retired('post')];
