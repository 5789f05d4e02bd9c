import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { KeyFile } from '../src/auth/key-file.ts';
import { createKey } from '../src/cli/keys.ts';
import { canonicalLanguage } from '../src/domain/names.ts';
import { EXAMPLES, exampleRequest, type Caller, type OperationExamples } from '../src/schemas/examples.ts';
import { KEYS, PUBLIC_URL, PUBLISHING, V1, V1_NODES, V2, V2_NODES, type StoryNode, type StoryVersion } from '../src/schemas/story.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import { WEBHOOK_ID } from '../src/schemas/webhook-examples.ts';
import { IMPORT_REVISION } from '../src/schemas/history-examples.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

/**
 * The examples of openapi.json (src/schemas/examples.ts) are complete and true: every operation has
 * them, each validates against the schema it illustrates, and each answer is what a real service
 * holding the examples' story answers to the request the example names. HELP_EXAMPLES_SHOW=1
 * prints every real answer, to write an example from.
 */

type Json = any;

interface Operation {
  id: string;
  method: string;
  path: string;
  tag: string;
  public: boolean;
  doc: Json;
}

const operationsOf = (doc: Json): Operation[] =>
  Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ id: op.operationId, method, path, tag: op.tags[0], public: op.security.some((s: object) => Object.keys(s).length === 0), doc: op })),
  );

const jsonOf = (part: Json) => part?.content?.['application/json'];

let server: TestServer;
let doc: Json;
before(async () => {
  server = await startTestServer();
  doc = (await server.request('GET', '/openapi.json', { key: null })).body;
});
after(() => server.close());

describe('Examples in openapi.json', () => {
  test('every operation has examples: its request body, each JSON success answer, an error answer, its path parameters', () => {
    const problems: string[] = [];
    for (const op of operationsOf(doc)) {
      const where = `${op.id} (${op.method.toUpperCase()} ${op.path})`;
      if (EXAMPLES[op.id] === undefined) {
        problems.push(`${where} has no entry in src/schemas/examples.ts`);
        continue;
      }
      const body = jsonOf(op.doc.requestBody);
      if (body && Object.keys(body.examples ?? {}).length === 0) problems.push(`${where} has no request body example`);
      // The reference page lists request examples by their summaries, and answers name them so.
      const summaries = Object.values((body?.examples ?? {}) as Record<string, { summary: string }>).map((e) => e.summary);
      if (new Set(summaries).size !== summaries.length) problems.push(`${where} has request examples with the same summary`);
      const statuses = Object.entries(op.doc.responses as Record<string, Json>);
      for (const [status, response] of statuses) {
        if (status.startsWith('2') && jsonOf(response) && Object.keys(jsonOf(response).examples ?? {}).length === 0) problems.push(`${where} has no example of its ${status} answer`);
      }
      if (!statuses.some(([status, response]) => Number(status) >= 400 && Object.keys(jsonOf(response)?.examples ?? {}).length > 0)) problems.push(`${where} has no example of an error answer`);
      for (const p of op.doc.parameters as Json[]) if (p.in === 'path' && p.example === undefined) problems.push(`${where} has no example of its path parameter ${p.name}`);
    }
    assert.deepEqual(problems, []);
  });

  test('every example in src/schemas/examples.ts is in the document: no operation, parameter, request or status that does not exist', () => {
    const operations = new Map(operationsOf(doc).map((op) => [op.id, op]));
    const problems: string[] = [];
    for (const [id, examples] of Object.entries(EXAMPLES)) {
      const op = operations.get(id);
      if (!op) {
        problems.push(`${id} is not an operation`);
        continue;
      }
      for (const name of Object.keys(examples.parameters ?? {})) {
        if (!(op.doc.parameters as Json[]).some((p) => p.name === name)) problems.push(`${id} has no parameter ${name}`);
      }
      if (examples.requests && !jsonOf(op.doc.requestBody)) problems.push(`${id} takes no request body`);
      const parameters = (where: string) => new Set((op.doc.parameters as Json[]).filter((p) => p.in === where).map((p) => p.name as string));
      for (const [status, answers] of Object.entries(examples.responses)) {
        const media = jsonOf(op.doc.responses[status]);
        if (!media) problems.push(`${id} documents no JSON answer with status ${status}`);
        for (const [name, answer] of Object.entries(answers)) {
          if (media && media.examples?.[name] === undefined) problems.push(`${id} ${status} ${name} is missing`);
          for (const p of Object.keys(answer.sent?.path ?? {})) if (!parameters('path').has(p)) problems.push(`${id} ${status} ${name} sends a path parameter ${p} that the operation does not have`);
          for (const p of Object.keys(answer.sent?.query ?? {})) if (!parameters('query').has(p)) problems.push(`${id} ${status} ${name} sends a query parameter ${p} that the operation does not document`);
          if (answer.sent?.body !== undefined && examples.requests?.[answer.sent.body] === undefined) problems.push(`${id} ${status} ${name} sends a request example ${answer.sent.body} that does not exist`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  test("every example validates against the schema it illustrates, the document's own schemas with their $refs resolved", () => {
    const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
    (addFormats as unknown as typeof addFormats.default)(ajv, ['date-time', 'date']);
    ajv.addFormat('language-tag', (code: string) => canonicalLanguage(code) !== null);
    ajv.addSchema({ components: doc.components }, 'openapi.json');
    // `#/components/…` in a media type or a parameter means the document's.
    const inDocument = (schema: Json): Json =>
      Array.isArray(schema)
        ? schema.map(inDocument)
        : schema !== null && typeof schema === 'object'
          ? Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `openapi.json${v}` : inDocument(v)]))
          : schema;
    const problems: string[] = [];
    let checked = 0;
    const check = (where: string, schema: Json, value: unknown) => {
      const validate = ajv.compile(inDocument(schema));
      checked++;
      if (!validate(value)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
    };
    for (const op of operationsOf(doc)) {
      for (const p of op.doc.parameters as Json[]) if (p.example !== undefined) check(`${op.id} parameter ${p.name}`, p.schema, p.example);
      const body = jsonOf(op.doc.requestBody);
      for (const [name, example] of Object.entries((body?.examples ?? {}) as Record<string, Json>)) check(`${op.id} request ${name}`, body.schema, example.value);
      for (const [status, response] of Object.entries(op.doc.responses as Record<string, Json>)) {
        const media = jsonOf(response);
        for (const [name, example] of Object.entries((media?.examples ?? {}) as Record<string, Json>)) check(`${op.id} ${status} ${name}`, media.schema, example.value);
      }
    }
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, Json>)) {
      for (const [i, value] of (schema.examples ?? []).entries()) check(`components.schemas.${name}.examples[${i}]`, { $ref: `#/components/schemas/${name}` }, value);
    }
    assert.deepEqual(problems, []);
    assert.ok(checked > 150, `${checked} examples checked`);
  });

  test('each answer says which request it answers', () => {
    const tree = doc.paths['/versions/{version}/tree'].get.responses['404'].content['application/json'].examples.unknownVersion;
    assert.equal(tree.description, 'The answer to `GET /help/v1/versions/v9/tree`, without a credential.');
    const conflict = doc.paths['/versions'].post.responses['409'].content['application/json'].examples.conflict;
    assert.equal(conflict.description, 'The answer to `POST /help/v1/versions`, with the request body “A slug that is taken”, with a key that has help:read and help:write.');
  });
});

// ---------------------------------------------------------------------------------------------
// The examples sent to the real service.

/** The HTTP request an example names, with the keys of this run. */
interface Keys {
  writer: string;
  reader: string;
}

const keyOf = (as: Caller, keys: Keys): string | null => (as === 'anonymous' ? null : as === 'revoked key' ? KEYS.revoked : keys[as]);

/** What an import sends for a story node: its fields and translations (the stamps are the service's). */
const importNode = ({ translations, ...n }: StoryNode) => ({ ...n, translations: Object.fromEntries(Object.entries(translations).map(([l, { updatedAt: _, ...t }]) => [l, t])) });

async function writeStory(s: TestServer, key: string): Promise<void> {
  const ok = async (method: string, path: string, body: unknown) => {
    const res = await s.request(method, path, { key, body });
    assert.equal(res.status, 200, `${method} ${path}: ${res.text}`);
  };
  const create = (v: StoryVersion) => ok('POST', '/versions', { slug: v.slug, label: v.label, languages: v.languages, sortOrder: v.sortOrder });
  await create(V1);
  await ok('POST', '/versions/v1/import', { mode: 'replace', nodes: V1_NODES.map(importNode) });
  await ok('PATCH', '/versions/v1', { status: V1.status });
  await create(V2);
  await ok('POST', '/versions/v2/import', { mode: 'replace', nodes: V2_NODES.map(importNode) });
  await ok('PATCH', '/versions/v2', { status: V2.status, isLatest: V2.isLatest });
}

const STORY_IDS = new Set([...V1_NODES, ...V2_NODES].map((n) => n.id));
const ISO_STAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{3})?Z/g;
/** A stamp in a branch name: publish/v2/20261118T091530482Z. */
const COMPACT_STAMP = /\d{8}T\d{9}Z/g;
/** Fields whose values belong to the moment or the key of a run; only their type is compared. */
const VOLATILE = new Set(['requestId', 'keyPrefix', 'date', 'secret', 'revision']);

/**
 * A node's sortOrder (in an object with a kind or a parentSlug) is compared as a number only: the
 * examples give siblings the sort keys 10, 20, 30, and how the service numbers them is not what an
 * example is about. A version's sortOrder is compared.
 */
const isNodeSortOrder = (key: string, parent: object | null) => key === 'sortOrder' && parent !== null && ('kind' in parent || 'parentSlug' in parent);

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Where `actual` differs from `expected`, stamps and the fields above aside. */
function differences(expected: unknown, actual: unknown, at = '', key = '', parent: object | null = null): string[] {
  if (typeOf(expected) !== typeOf(actual)) return [`${at || '/'}: ${JSON.stringify(actual)?.slice(0, 200)} where the example has ${JSON.stringify(expected)?.slice(0, 200)}`];
  // A node the example creates gets its id from the service.
  if (VOLATILE.has(key) || isNodeSortOrder(key, parent) || (key === 'id' && !STORY_IDS.has(expected as string))) return [];
  if (typeof expected === 'string') {
    const norm = (s: string) => s.replace(ISO_STAMP, '<time>').replace(COMPACT_STAMP, '<time>');
    return norm(expected) === norm(actual as string) ? [] : [`${at}: ${JSON.stringify(actual)} where the example has ${JSON.stringify(expected)}`];
  }
  if (Array.isArray(expected)) {
    const a = actual as unknown[];
    if (a.length !== expected.length) return [`${at}: ${a.length} items where the example has ${expected.length}: ${JSON.stringify(actual).slice(0, 300)}`];
    return expected.flatMap((e, i) => differences(e, a[i], `${at}/${i}`));
  }
  if (expected !== null && typeof expected === 'object') {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(e), ...Object.keys(a)])];
    return keys.flatMap((k) => (!(k in a) ? [`${at}/${k}: missing (the example has it)`] : !(k in e) ? [`${at}/${k}: ${JSON.stringify(a[k])?.slice(0, 200)} is not in the example`] : differences(e[k], a[k], `${at}/${k}`, k, e)));
  }
  return expected === actual ? [] : [`${at}: ${JSON.stringify(actual)} where the example has ${JSON.stringify(expected)}`];
}

/** Replaces every `from` by `to` in the strings of a JSON value. */
function substitute(value: unknown, pairs: Array<[string, string]>): unknown {
  if (value === undefined || pairs.length === 0) return value;
  let text = JSON.stringify(value);
  for (const [from, to] of pairs) text = text.replaceAll(from, to);
  return JSON.parse(text);
}

const PUBLISHING_TAG = 'Publishing through pull requests';
const GITHUB_TOKEN = 'ghp_examples';

/** Brings a service to the state an example starts from, beyond the story; answers the story's values → this run's. */
type Setup = (s: TestServer, keys: Keys) => Promise<Record<string, string> | void>;

async function expect(s: TestServer, keys: Keys, method: string, path: string, status: number, body?: unknown) {
  const res = await s.request(method, path, { key: keys.writer, body });
  assert.equal(res.status, status, `setting up, ${method} ${path}: ${res.text}`);
  return res.body;
}

const workingCopy: Setup = async (s, keys) => {
  await expect(s, keys, 'POST', '/versions/v2/working-copy', 201);
};
const editedCopy: Setup = async (s, keys) => {
  await workingCopy(s, keys);
  await expect(s, keys, 'PUT', '/versions/v2-wip/topics/keyboard-shortcuts/translations/de', 200, EXAMPLES.putTranslation.requests!.german.value);
};
const openRequest: Setup = async (s, keys) => {
  await editedCopy(s, keys);
  const { request } = await expect(s, keys, 'POST', '/versions/v2-wip/publish-request', 201);
  return { [PUBLISHING.requestId]: request.id };
};
const subscribed: Setup = async (s, keys) => {
  const { webhook } = await expect(s, keys, 'POST', '/webhooks', 201, EXAMPLES.createWebhook.requests!.subscribe.value);
  return { [WEBHOOK_ID]: webhook.id };
};
/** The story's import of v2 under this run's commit id. */
const importRevision: Setup = async (s, keys) => {
  const { history } = await expect(s, keys, 'GET', '/versions/v2/history', 200);
  return { [IMPORT_REVISION]: history.find((e: { message: string }) => e.message.startsWith('Import')).revision };
};
const editedEnglish: Setup = async (s, keys) => {
  await expect(s, keys, 'PUT', '/versions/v2/topics/keyboard-shortcuts/translations/en', 200, { title: 'Shortcuts', bodyMd: 'Edited.\n' });
  return importRevision(s, keys);
};
const cancelledRequest: Setup = async (s, keys) => {
  const ids = (await openRequest(s, keys))!;
  await expect(s, keys, 'DELETE', `/publish-requests/${ids[PUBLISHING.requestId]}`, 200);
  return ids;
};

/** Examples that start from more than the story, by `operationId status name`. */
const SETUPS: Record<string, Setup> = {
  'createWorkingCopy 200 existed': workingCopy,
  'discardWorkingCopy 200 discarded': workingCopy,
  'discardWorkingCopy 409 requestOpen': openRequest,
  'createPublishRequest 200 dryRun': editedCopy,
  'createPublishRequest 201 opened': editedCopy,
  'createPublishRequest 409 requestOpen': openRequest,
  'listPublishRequests 200 open': openRequest,
  'cancelPublishRequest 200 closed': openRequest,
  'cancelPublishRequest 409 notOpen': cancelledRequest,
  'githubWebhook 200 handled': openRequest,
  'listWebhooks 200 one': subscribed,
  'deleteWebhook 200 deleted': subscribed,
  'listWebhookDeliveries 200 none': subscribed,
  'getHistoryDiff 200 created': importRevision,
  'restoreNode 200 restored': editedEnglish,
};

describe('The examples are what the service answers', () => {
  let story: string;
  const keys = {} as Keys;
  let operations: Map<string, Operation>;
  const dirs: string[] = [];
  before(async () => {
    // The story, written once; each example then runs on a fresh copy of it.
    story = mkdtempSync(join(tmpdir(), 'help-test-'));
    keys.writer = (await createKey(new KeyFile(story), { name: KEYS.writer.name })).key;
    keys.reader = (await createKey(new KeyFile(story), { name: KEYS.reader.name, scopes: 'help:read' })).key;
    const s = await startTestServer({ dataDir: story });
    await writeStory(s, keys.writer);
    await s.service.close();
    operations = new Map(operationsOf(doc).map((op) => [op.id, op]));
  });
  after(() => {
    for (const dir of [story, ...dirs]) rmSync(dir, { recursive: true, force: true });
  });

  /** A service on a copy of the story; with publishing on for the publishing operations, against a fake GitHub. */
  async function serviceFor(op: Operation): Promise<{ s: TestServer; stop: () => Promise<void> }> {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    dirs.push(dataDir);
    cpSync(story, dataDir, { recursive: true });
    const env: Record<string, string> = { HELP_PUBLIC_URL: PUBLIC_URL };
    let gh: FakeGitHub | null = null;
    if (op.tag === PUBLISHING_TAG) {
      const [owner, repo] = PUBLISHING.repository.split('/');
      gh = await new FakeGitHub(owner, repo, GITHUB_TOKEN).start();
      gh.nextPullNumber = PUBLISHING.prNumber;
      Object.assign(env, { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: PUBLISHING.repository, HELP_GITHUB_TOKEN: GITHUB_TOKEN, HELP_GITHUB_API_URL: gh.url, HELP_GITHUB_WEBHOOK_SECRET: PUBLISHING.webhookSecret });
    }
    const s = await startTestServer({ dataDir, env });
    return {
      s,
      stop: async () => {
        await s.close();
        await gh?.stop();
      },
    };
  }

  test('every set-up belongs to an example', () => {
    const names = Object.entries(EXAMPLES).flatMap(([id, examples]) => Object.entries(examples.responses).flatMap(([status, answers]) => Object.keys(answers).map((name) => `${id} ${status} ${name}`)));
    assert.deepEqual(Object.keys(SETUPS).filter((key) => !names.includes(key)), []);
  });

  for (const [id, examples] of Object.entries(EXAMPLES)) {
    test(id, async () => {
      const op = operations.get(id);
      assert.ok(op, `${id} is an operation`);
      const problems: string[] = [];
      for (const [status, answers] of Object.entries((examples as OperationExamples).responses)) {
        for (const [name, answer] of Object.entries(answers)) {
          const { s, stop } = await serviceFor(op);
          try {
            const given = Object.entries((await SETUPS[`${id} ${status} ${name}`]?.(s, keys)) ?? {});
            // GitHub's pull request pages, as the fake names them.
            if (op.tag === PUBLISHING_TAG) given.push(['https://github.com/', 'https://github.example/']);
            const req = exampleRequest(op, examples, answer);
            const path = substitute(req.path, given) as string;
            const body = substitute(req.body, given);
            const res = await s.request(req.method, path, { key: keyOf(req.as, keys), body, headers: req.headers });
            const actual = substitute(res.body, given.map(([story, run]) => [run, story]));
            if (process.env.HELP_EXAMPLES_SHOW) console.log(`${id} ${status} ${name}: ${req.method} ${path} → ${res.status}\n${JSON.stringify(actual, null, 2)}`);
            if (res.status !== Number(status)) problems.push(`${status} ${name}: ${req.method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
            else problems.push(...differences(answer.value, actual).map((d) => `${status} ${name}: ${d}`));
          } finally {
            await stop();
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  }
});
