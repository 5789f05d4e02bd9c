import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { invalid } from '../errors.ts';
import type { Actor } from '../http/actor.ts';
import { wellFormed } from '../http/api.ts';
import { check } from '../schemas/registry.ts';
import { argumentName, bodyScalars, languageAlias, publishedQueryProperty, queryValue } from './arguments.ts';
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
  /** The client's address, for limits kept per address (feedback). */
  address: string;
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
  /**
   * Whether a repeated call changes nothing more, whether it deletes, whether it reaches beyond the
   * service; `readOnly` true for a tool that needs help:write without changing anything (listing publish
   * requests), false for one that changes something without it (feedback, which is no content).
   */
  hints?: { idempotent?: boolean; destructive?: boolean; openWorld?: boolean; readOnly?: boolean };
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

/**
 * Path parameters as published: they name what exists, which a caller copies from an answer, so the
 * naming rules (patterns, reserved names; for creating) are left to the check with the registry's schema.
 */
const PARAM_SCHEMAS: Record<string, JsonSchema> = {
  VersionRef: { type: 'string', description: 'A version slug, or "latest" for the version marked latest.' },
  VersionSlug: { type: 'string', description: 'A version slug (not "latest").' },
  NodeSlug: { type: 'string', description: 'A node slug.' },
  LanguageCode: { type: 'string', description: 'A language code such as en, de or pt-BR.' },
  RequestId: { type: 'string', description: 'A publish request id, as answers give it.' },
};

/** The tool as `tools/list` shows it: schemas made self-contained, annotations from its kind. */
export function listing(spec: ToolSpec): Tool {
  const hints = spec.hints ?? {};
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: inputSchema(spec) as Tool['inputSchema'],
    // The answer's shape only: the description says what a tool answers, and the descriptions and
    // patterns of every field answered were more than half of what tools/list put into a model's context.
    outputSchema: selfContained(typeof spec.output === 'string' ? registrySchema(spec.output) : spec.output, { shapeOnly: true }) as Tool['outputSchema'],
    annotations:
      (spec.write && hints.readOnly !== true) || hints.readOnly === false
        ? { title: spec.title, readOnlyHint: false, destructiveHint: hints.destructive === true, idempotentHint: hints.idempotent === true, openWorldHint: hints.openWorld === true }
        : { title: spec.title, readOnlyHint: true, openWorldHint: hints.openWorld === true },
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
    properties[name] = PARAM_SCHEMAS[id] ?? { $ref: id };
    required.push(name);
  }
  if (spec.query !== undefined) {
    const schema = registrySchema(spec.query) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) properties[argumentName(name)] = publishedQueryProperty(spec.query, name, property);
    required.push(...(schema.required ?? []).map(argumentName));
  }
  if (spec.body !== undefined) {
    const schema = registrySchema(spec.body) as { properties?: Record<string, unknown>; required?: string[] };
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
  const rest: Args = languageAlias({ ...wellFormed(given, 'arguments') }, argumentNames(spec));
  const args: Args = {};
  const take = (name: string) => {
    const value = rest[name];
    delete rest[name];
    return value;
  };
  for (const [name, id] of Object.entries(spec.params ?? {})) {
    const value = take(name);
    if (value === undefined) throw invalid(`arguments/${name}`, 'is required');
    args[name] = checkParam(id, value, `arguments/${name}`);
  }
  for (const [name, { schema }] of Object.entries(spec.extra ?? {})) {
    const value = take(name);
    if (value !== undefined) args[name] = check(schema, value, `arguments/${name}`);
  }
  if (spec.query) {
    const query: Args = {};
    for (const name of Object.keys((registrySchema(spec.query) as { properties?: object }).properties ?? {})) {
      const arg = argumentName(name);
      if (arg in rest) query[name] = queryValue(spec.query, name, take(arg), `arguments/${arg}`);
    }
    Object.assign(args, check(spec.query, query, 'arguments'));
  }
  if (spec.input) {
    const given: Args = {};
    for (const name of Object.keys(spec.input.properties)) if (name in rest) given[name] = take(name);
    Object.assign(args, spec.input.read(given));
  }
  if (spec.body) {
    const body = bodyScalars(spec.body, rest);
    check(spec.body, body, 'arguments');
    return { args: { ...args, ...body }, body };
  }
  if (Object.keys(rest).length > 0) throw invalid(`arguments/${Object.keys(rest)[0]}`, 'is not a known field');
  return { args, body: rest };
}

const NAMES = new WeakMap<ToolSpec, ReadonlySet<string>>();

/** The argument names a tool publishes. */
function argumentNames(spec: ToolSpec): ReadonlySet<string> {
  let names = NAMES.get(spec);
  if (names === undefined) {
    names = new Set(Object.keys((inputSchema(spec) as { properties: object }).properties));
    NAMES.set(spec, names);
  }
  return names;
}

/**
 * A path parameter checked with its registry schema. `latest` is a VersionRef by itself, and any other
 * value is checked as the slug it must then be: the VersionRef's two branches together told a mistyped
 * slug only that it "must be equal to constant".
 */
export function checkParam(id: string, value: unknown, field: string): unknown {
  // The registry's words for it speak of REST routes; every other tool takes "latest".
  if (id === 'VersionSlug' && value === 'latest') throw invalid(field, 'must be the version\'s own slug here, not "latest" (list_versions shows which version is marked latest)');
  if (id !== 'VersionRef') return check(id, value, field);
  return value === 'latest' ? value : check('VersionSlug', value, field);
}
