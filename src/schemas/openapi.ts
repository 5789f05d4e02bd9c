import { ERROR_CATALOGUE, type ErrorCode } from '../errors.ts';
import { PATH_PARAMS, pipelineErrors, type EndpointDoc, type ResponseDoc } from './endpoint.ts';
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
 * An endpoint's error answers, one per HTTP status, built from the codes it declares and those the
 * pipeline adds (pipelineErrors): each status lists its codes with the catalogue's meaning.
 */
function errorResponses(e: EndpointDoc): Record<number, ResponseDoc> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...pipelineErrors(e), ...e.errors])) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<number, ResponseDoc> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[status] = { description: codes.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].description}`).join(' '), schema: 'Error' };
  }
  return out;
}

/** The OpenAPI 3.1 document, built from the endpoint declarations and the same schemas ajv validates with. */
/** `issuer`: the service's origin, where the authorization server's endpoints are (OAuth URLs must be absolute). */
export function buildOpenApi(endpoints: readonly EndpointDoc[], basePath: string, issuer: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of endpoints) {
    if (e.documented === false) continue;
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
    const notModified: Record<number, ResponseDoc> = e.cache ? { 304: { description: 'Not modified: the `If-None-Match` ETag is current' } } : {};
    for (const [status, doc] of Object.entries({ ...e.responses, ...notModified, ...errorResponses(e) })) {
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
    if (e.deprecated) operation.deprecated = true;
    // 'credential' (whoami) takes any valid key, whatever its scopes: no scope is required.
    if (e.access !== 'public') {
      operation.security = [{ apiKey: e.access === 'write' ? ['help:write'] : [] }, { oauth: e.access === 'write' ? ['help:write'] : [] }];
    } else operation.security = [{}, { apiKey: [] }, { oauth: ['help:read'] }];
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
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (prefix `hcs_`) issued with `npm run cli -- keys create`.' },
        oauth: {
          type: 'oauth2',
          description:
            'An OAuth 2.1 access token from the service\'s authorization server (metadata at `/.well-known/oauth-authorization-server`): authorization code with PKCE S256, dynamic client registration, rotated refresh tokens. Ask for `resource=' +
            `${issuer}${basePath}` +
            '` (RFC 8707); a token issued for the tool endpoint is refused here. Consent is given by accounts with the admin or editor role.',
          flows: {
            authorizationCode: {
              authorizationUrl: `${issuer}/oauth/authorize`,
              tokenUrl: `${issuer}/oauth/token`,
              refreshUrl: `${issuer}/oauth/token`,
              scopes: { 'help:read': 'Read help content, including drafts and archived versions', 'help:write': 'Every write' },
            },
          },
        },
      },
    },
    paths,
  };
}
