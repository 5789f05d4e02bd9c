/**
 * What an endpoint declares about itself, apart from its handler: route, access, schemas and
 * documentation. The HTTP layer mounts it (http/api.ts adds the handler) and openapi.json is built
 * from it, so the two cannot disagree.
 */

import type { ErrorCode } from '../errors.ts';

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
  /** Retired: still answered (410 `gone`, say), marked `deprecated` in openapi.json so that no client starts using it. */
  deprecated?: boolean;
  /**
   * False for what the API router serves that is no API operation (the reference page's own styles,
   * scripts and icon): left out of openapi.json, where the reference page would list them as the API's.
   */
  documented?: boolean;
  /** The successful answers (2xx, 304). */
  responses: Record<number, ResponseDoc>;
  /**
   * The error codes the endpoint's own work can answer with (errors.ts). Those the pipeline answers
   * for every endpoint of its kind (validation, credentials, scope, body limits, the lock on
   * published versions, storage) are added by `pipelineErrors`; openapi.json documents both.
   */
  errors: readonly ErrorCode[];
}

/** The codes every endpoint of this kind can answer because of how it is mounted, whatever its handler does. */
export function pipelineErrors(e: Pick<EndpointDoc, 'path' | 'query' | 'body' | 'access'>): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (e.path.includes(':') || e.query || e.body) codes.push('validation_failed');
  if (e.body) codes.push('invalid_json', 'payload_too_large', 'unsupported_media_type');
  // A credential that is sent but wrong is refused on public reads too.
  codes.push('unauthorized');
  if (e.access === 'write') codes.push('insufficient_scope', 'precondition_failed', 'published_read_only', 'repository_changed', 'storage_failed');
  if (e.path.includes(':version')) codes.push('version_unavailable', 'version_loading');
  codes.push('starting');
  return codes;
}
