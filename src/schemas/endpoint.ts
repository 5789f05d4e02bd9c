/**
 * What an endpoint declares about itself, apart from its handler: route, access, schemas and
 * documentation. The HTTP layer mounts it (http/api.ts adds the handler) and openapi.json is built
 * from it, so the two cannot disagree.
 */

/** public: no credential needed (drafts need one); write: a key with help:write; credential: any valid key. */
export type Access = 'public' | 'write' | 'credential';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Path parameters: the schema each is checked against and its description, for every route that uses the name. */
export const PATH_PARAMS: Readonly<Record<string, { schema: string; description: string }>> = {
  version: { schema: 'VersionSlug', description: 'Version slug' },
  slug: { schema: 'NodeSlug', description: 'Node slug' },
  lang: { schema: 'LanguageCode', description: 'Language code' },
  file: { schema: 'FontFileName', description: 'Font file name' },
};

export interface ResponseDoc {
  description: string;
  schema?: string;
}

export interface EndpointDoc {
  method: Method;
  /** Koa-style path below the base path, e.g. `/versions/:version`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  query?: string;
  body?: string;
  /** Schemas for path parameters that differ from the usual ones (e.g. a version slug or `latest`). */
  params?: Record<string, string>;
  /** Largest raw body in bytes, when the endpoint takes more than the configured default. */
  bodyLimit?: number;
  /** Keep the raw body text too (for signature checks). */
  rawBody?: boolean;
  /** A public read whose answer depends only on the content, the caller's visibility and the URL (cached, with ETag). */
  cache?: boolean;
  /** Header parameters the endpoint reads (documented in openapi.json). */
  headers?: Array<'If-Unmodified-Since'>;
  responses: Record<number, ResponseDoc>;
}
