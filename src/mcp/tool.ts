import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppError, invalid } from '../errors.ts';
import type { Actor } from '../http/actor.ts';
import { wellFormed } from '../http/api.ts';
import { check, otherSpelling } from '../schemas/registry.ts';
import type { AnswerBudget } from './budget.ts';
import { registrySchema, selfContained, type JsonSchema } from './schemas.ts';

/** A tool's checked arguments: the REST route's path parameters, query parameters and body fields, side by side. */
export type Args = Record<string, any>;

export interface ToolCall {
  actor: Actor | null;
  args: Args;
  /** The arguments that are the REST route's body (everything but path parameters and `extra`). */
  body: Args;
  /** The service's public origin, for absolute URLs in answers. */
  origin: string;
  /** What the request may still be answered with: a tool that knows its answer's size before building it refuses there. */
  answer: AnswerBudget;
}

/**
 * One tool: the REST route it stands for, by the same schemas, and what it does. Its input is the
 * route's path parameters, query parameters and body fields as one object; its output is the route's
 * 200 answer.
 */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** Writes need a credential with help:write; anonymous callers are not shown them. */
  write: boolean;
  /** For writes: whether a repeated call changes nothing more, whether it deletes, whether it reaches beyond the service. */
  hints?: { idempotent?: boolean; destructive?: boolean; openWorld?: boolean };
  /** The route's path parameters: argument name → registry schema. */
  params?: Record<string, string>;
  /** The route's query schema; its properties are arguments. */
  query?: string;
  /** The route's body schema; its properties are arguments. */
  body?: string;
  /** What the route takes as headers, as optional arguments: name → registry schema and description. */
  extra?: Record<string, { schema: string; description: string }>;
  /** Arguments of the tool's own, where they differ from any route's (search's defaults and paging, fetch's id). */
  input?: ToolInput;
  /** The route's 200 answer: a registry schema id, or a schema around it when that is not an object. */
  output: string | JsonSchema;
  /** What a caller does instead when the answer is larger than a tool-server request is answered with. */
  instead?: string;
  run(call: ToolCall): unknown;
}

/**
 * Arguments a tool reads itself, where taking them as its route does would not fit a tool's callers
 * (search ranks unless told otherwise, and takes numbers as numbers; fetch's id is no route's): the
 * schemas published for them, and how the ones given become `args`, checked (naming the argument at
 * fault) and with defaults filled in.
 */
export interface ToolInput {
  properties: Record<string, JsonSchema>;
  required?: string[];
  /** The given arguments among `properties` (absent ones are left out). */
  read(given: Args): Args;
}

const PARAM_DESCRIPTIONS: Record<string, string> = { version: 'The version slug', slug: 'The node slug', lang: 'The language code', language: 'The language code' };

/** The tool as `tools/list` shows it: schemas made self-contained, annotations from its kind. */
export function listing(spec: ToolSpec): Tool {
  const hints = spec.hints ?? {};
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: inputSchema(spec) as Tool['inputSchema'],
    outputSchema: selfContained(typeof spec.output === 'string' ? registrySchema(spec.output) : spec.output) as Tool['outputSchema'],
    annotations: spec.write
      ? { title: spec.title, readOnlyHint: false, destructiveHint: hints.destructive === true, idempotentHint: hints.idempotent === true, openWorldHint: hints.openWorld === true }
      : { title: spec.title, readOnlyHint: true, openWorldHint: false },
  };
}

/**
 * One object of every argument. Combinators of a body schema (ImportRequest's "nodes or document")
 * stay out of it: model providers refuse them at the root of a tool's input. The service checks them
 * anyway (readArguments).
 */
function inputSchema(spec: ToolSpec): JsonSchema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, id] of Object.entries(spec.params ?? {})) {
    properties[name] = { $ref: id, description: id === 'VersionRef' ? 'The version slug, or "latest" for the version marked latest' : PARAM_DESCRIPTIONS[name] };
    required.push(name);
  }
  for (const id of [spec.query, spec.body]) {
    if (id === undefined) continue;
    const schema = registrySchema(id) as { properties?: Record<string, unknown>; required?: string[] };
    Object.assign(properties, schema.properties);
    required.push(...(schema.required ?? []));
  }
  for (const [name, { schema, description }] of Object.entries(spec.extra ?? {})) properties[name] = { $ref: schema, description };
  Object.assign(properties, spec.input?.properties);
  required.push(...(spec.input?.required ?? []));
  return selfContained({ type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false });
}

/**
 * Checks a call's arguments with the registry's schemas, as the REST route checks its path, query
 * and body: errors name the argument (`arguments/slug`), unknown arguments are refused.
 */
export function readArguments(spec: ToolSpec, given: Record<string, unknown>): { args: Args; body: Args } {
  const rest: Args = { ...wellFormed(given, 'arguments') };
  const args: Args = {};
  const take = (name: string) => {
    const value = rest[name];
    delete rest[name];
    return value;
  };
  for (const [name, id] of Object.entries(spec.params ?? {})) {
    const value = take(name);
    if (value === undefined) {
      // get_translation takes `language`, put_translation `lang` (the routes' path parameters): the other one is named.
      const other = otherSpelling(name);
      throw invalid(`arguments/${name}`, other !== null && rest[other] !== undefined ? `is required (this tool takes the language as "${name}", not "${other}")` : 'is required');
    }
    args[name] = checkParam(id, value, `arguments/${name}`);
  }
  for (const [name, { schema }] of Object.entries(spec.extra ?? {})) {
    const value = take(name);
    if (value !== undefined) args[name] = check(schema, value, `arguments/${name}`);
  }
  if (spec.query) {
    const query: Args = {};
    for (const name of Object.keys((registrySchema(spec.query) as { properties?: object }).properties ?? {})) if (name in rest) query[name] = take(name);
    Object.assign(args, check(spec.query, query, 'arguments'));
  }
  if (spec.input) {
    const given: Args = {};
    for (const name of Object.keys(spec.input.properties)) if (name in rest) given[name] = take(name);
    Object.assign(args, spec.input.read(given));
  }
  if (spec.body) check(spec.body, rest, 'arguments');
  else if (Object.keys(rest).length > 0) throw invalid(`arguments/${Object.keys(rest)[0]}`, 'is not a known field');
  return { args: { ...args, ...rest }, body: rest };
}

/**
 * A path parameter checked with its registry schema. `latest` is a VersionRef by itself, and any other
 * value is checked as the slug it must then be: the VersionRef's two branches together told a mistyped
 * slug only that it "must be equal to constant".
 */
export function checkParam(id: string, value: unknown, field: string): unknown {
  if (id !== 'VersionRef') return check(id, value, field);
  return value === 'latest' ? value : check('VersionSlug', value, field);
}

/** A tool's answer: the REST answer as structured content, and the same JSON as text. */
export function toolResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

/**
 * A tool's failure: the body the REST API answers with, `{ error: { code, message, ... } }`, as a
 * result with `isError`. The domain names the field at fault as the REST API has it (`body/slug`,
 * `path/lang`); a tool takes the route's path, query and body fields side by side as its arguments,
 * so here they are `arguments/slug`, `arguments/lang`.
 */
export function errorResult(error: AppError, requestId: unknown): CallToolResult {
  const { field, errors, offending, ...data } = error.data as { field?: unknown; errors?: unknown; offending?: unknown };
  const located: Record<string, unknown> = { ...data };
  let message = error.message;
  if (typeof field === 'string') {
    located.field = asArgument(field);
    if (message.startsWith(`${field} `)) message = `${located.field as string}${message.slice(field.length)}`;
  }
  const relocate = (list: unknown[]) => list.map((e) => (typeof (e as { field?: unknown })?.field === 'string' ? { ...(e as object), field: asArgument((e as { field: string }).field) } : e));
  if (Array.isArray(errors)) located.errors = relocate(errors);
  // An import's problems name their fields too (body/nodes/3/parentSlug).
  if (Array.isArray(offending)) located.offending = relocate(offending);
  const body = { error: { code: error.code, message, ...located, requestId } };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

/** `body/translations/de/title` → `arguments/translations/de/title`; `body` alone (the whole change) → `arguments`. */
const asArgument = (field: string): string => field.replace(/^(?:body|path|query)(?=\/|$)/, 'arguments');

