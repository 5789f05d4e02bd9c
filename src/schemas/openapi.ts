import { PATH_PARAMS, type EndpointDoc } from './endpoint.ts';
import { describeRequest, EXAMPLES, exampleRequest, type OperationExamples } from './examples.ts';
import { allSchemas } from './registry.ts';

/** Rewrites `$ref: 'Name'` (how ajv knows the schemas) to `#/components/schemas/Name` and drops `$id`. */
function toComponent(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toComponent);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$id') continue;
    out[k] = k === '$ref' && typeof v === 'string' && !v.startsWith('#') ? `#/components/schemas/${v}` : toComponent(v);
  }
  return out;
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

const error = (description: string) => ({ description, schema: 'Error' });

/**
 * Puts an operation's examples (src/schemas/examples.ts) into it: parameter values, request bodies,
 * and answers, each answer saying which request it answers.
 */
function addExamples(operation: Record<string, any>, e: EndpointDoc, path: string, examples: OperationExamples | undefined, basePath: string): void {
  if (!examples) return;
  for (const parameter of operation.parameters as Array<{ name: string; example?: unknown }>) {
    const value = examples.parameters?.[parameter.name];
    if (value !== undefined) parameter.example = value;
  }
  if (examples.requests && operation.requestBody) {
    operation.requestBody.content['application/json'].examples = Object.fromEntries(Object.entries(examples.requests).map(([name, { summary, value }]) => [name, { summary, value }]));
  }
  const op = { method: e.method, path, public: e.access === 'public' };
  for (const [status, answers] of Object.entries(examples.responses)) {
    const media = operation.responses[status]?.content?.['application/json'];
    if (!media) continue;
    media.examples = Object.fromEntries(
      Object.entries(answers).map(([name, answer]) => [name, { summary: answer.summary, description: describeRequest(exampleRequest(op, examples, answer), basePath), value: answer.value }]),
    );
  }
}

/**
 * The answers every endpoint can give because of how `mount` runs it, whatever its handler does:
 * checked parameters and bodies (400), a credential that is present but wrong (401, on public reads
 * too), a missing scope (403), the body parser's refusals (413, 415), a 304 for a cached read whose
 * ETag the caller has, and 503 while the content is loading. Listed here, they cannot drift from the
 * pipeline; an endpoint's own `responses` say more where they name the same status.
 */
function pipelineResponses(e: EndpointDoc): Record<number, { description: string; schema?: string }> {
  const out: Record<number, { description: string; schema?: string }> = {};
  if (e.path.includes(':') || e.query || e.body) out[400] = error('`validation_failed`: a path parameter, query parameter or body field is invalid (`field` names it)');
  out[401] = error(e.access === 'public' ? '`unauthorized`: a credential was sent but is malformed, unknown or revoked (public reads need none)' : '`unauthorized`: no credential, or a malformed, unknown or revoked one');
  if (e.access === 'write') {
    out[403] = error('`insufficient_scope`: the key lacks help:write');
    out[409] = error('`repository_changed`: the repository was changed outside the service; nothing was written');
  }
  if (e.body) {
    out[413] = error('`payload_too_large`: the body is larger than the limit');
    out[415] = error('`unsupported_media_type`: the body is not sent as application/json');
  }
  if (e.cache) out[304] = { description: 'Not modified: the `If-None-Match` ETag is current' };
  out[503] = error('`starting`: the content is still loading; or `version_unavailable`: the version\'s stored data is broken');
  return out;
}

/** The OpenAPI 3.1 document, built from the endpoint declarations and the same schemas ajv validates with. */
export function buildOpenApi(endpoints: readonly EndpointDoc[], basePath: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of endpoints) {
    const path = e.path.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [...e.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      description: PATH_PARAMS[name]?.description,
      schema: ref(e.params?.[name] ?? PATH_PARAMS[name]?.schema ?? 'NodeSlug'),
    }));
    if (e.query) {
      const q = allSchemas.find((s) => s.$id === e.query) as unknown as { properties: Record<string, { description?: string }>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties)) {
        parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, description: schema.description, schema: toComponent(schema) });
      }
    }
    for (const header of e.headers ?? []) {
      parameters.push({ name: header, in: 'header', required: false, description: 'Refuse the write (409 `stale_write`) if the resource changed after this ISO timestamp or HTTP-date.', schema: { type: 'string' } });
    }
    const responses: Record<string, unknown> = {};
    for (const [status, doc] of Object.entries({ ...pipelineResponses(e), ...e.responses })) {
      responses[status] = doc.schema ? { description: doc.description, content: { 'application/json': { schema: ref(doc.schema) } } } : { description: doc.description };
    }
    const operation: Record<string, unknown> = {
      operationId: e.operationId,
      summary: e.summary,
      tags: [e.tag],
      parameters,
      responses,
    };
    if (e.description) operation.description = e.description;
    // 'credential' (whoami) takes any valid key, whatever its scopes: no scope is required.
    if (e.access !== 'public') operation.security = [{ apiKey: e.access === 'write' ? ['help:write'] : [] }];
    else operation.security = [{}, { apiKey: [] }];
    if (e.body) operation.requestBody = { required: true, content: { 'application/json': { schema: ref(e.body) } } };
    addExamples(operation, e, path, EXAMPLES[e.operationId], basePath);
    paths[path] ??= {};
    paths[path][e.method] = operation;
  }
  const schemas: Record<string, unknown> = {};
  for (const s of allSchemas) schemas[s.$id] = toComponent(s);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Help Content Service API',
      version: '1.0.0',
      description: 'Versioned help documentation: versions, a tree of sections and topics, translations, Markdown bodies. Every error answers `{ error: { code, message, ... } }`.',
    },
    servers: [{ url: basePath }],
    components: {
      schemas,
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (prefix `hcs_`) issued with `npm run cli -- keys create`.' } },
    },
    paths,
  };
}
