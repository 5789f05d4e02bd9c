import { AssertionError } from 'node:assert';
import { validator } from '../../src/schemas/registry.ts';

/**
 * Every answer a test receives through `TestServer.request` is checked against the OpenAPI document
 * the same server serves: its status must be documented for the operation, and a JSON body must
 * validate against the documented schema with the service's own ajv. So each HTTP test is also a
 * contract test, and a response nobody documented fails the test that caused it.
 */

interface Operation {
  pattern: RegExp;
  method: string;
  template: string;
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}

interface OpenApiDoc {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, { responses: Operation['responses'] }>>;
}

const documents = new Map<string, Promise<{ base: string; operations: Operation[] }>>();

function load(origin: string, base: string): Promise<{ base: string; operations: Operation[] }> {
  let doc = documents.get(origin + base);
  if (doc === undefined) {
    doc = fetch(`${origin}${base}/openapi.json`).then(async (res) => {
      const body = (await res.json()) as OpenApiDoc;
      const operations: Operation[] = [];
      for (const [template, methods] of Object.entries(body.paths)) {
        const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{\w+\\\}|\{\w+\}/g, '[^/]+')}$`);
        for (const [method, op] of Object.entries(methods)) operations.push({ pattern, method, template, responses: op.responses });
      }
      return { base: body.servers[0].url, operations };
    });
    documents.set(origin + base, doc);
  }
  return doc;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Throws an AssertionError naming the operation when `answer` is not what the document promises. */
export async function checkContract(url: string, method: string, answer: Answer): Promise<void> {
  const { origin, pathname } = new URL(url);
  const { base, operations } = await load(origin, '/help/v1');
  if (!pathname.startsWith(base)) return;
  const path = pathname.slice(base.length) || '/';
  const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  const candidates = operations.filter((o) => o.pattern.test(path));
  const op = candidates.find((o) => o.method === verb);
  // No such operation: an unknown path is 404, a known path with another method 405, and a wrong
  // credential 401 before either (docs/api.md says so for the API as a whole, under Order of refusals).
  if (op === undefined) {
    if ([401, 404, 405].includes(answer.status)) return;
    throw new AssertionError({ message: `${method} ${pathname} answered ${answer.status}, and the OpenAPI document has no such operation` });
  }
  const documented = op.responses[String(answer.status)];
  if (documented === undefined) {
    throw new AssertionError({
      message: `${method} ${op.template} answered ${answer.status}, which its OpenAPI responses (${Object.keys(op.responses).join(', ')}) do not list: ${JSON.stringify(answer.body)?.slice(0, 300)}`,
    });
  }
  const schemaRef = documented.content?.['application/json']?.schema?.$ref;
  if (schemaRef === undefined || answer.body === undefined) return;
  if (!/^application\/json/.test(answer.headers.get('content-type') ?? '')) {
    throw new AssertionError({ message: `${method} ${op.template} answered ${answer.status} as ${answer.headers.get('content-type')}, documented as application/json` });
  }
  const validate = validator(schemaRef.replace('#/components/schemas/', ''));
  if (!validate(answer.body)) {
    throw new AssertionError({
      message: `${method} ${op.template} answered ${answer.status} with a body its schema refuses: ${JSON.stringify(validate.errors?.slice(0, 3))}; body ${JSON.stringify(answer.body).slice(0, 300)}`,
    });
  }
}
