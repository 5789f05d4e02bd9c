import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

/**
 * The shape of the JSON-RPC messages posted to the tool server, checked before the SDK sees them.
 * The SDK answers a request whose params do not fit its schema with -32603 "Internal error" and its
 * validator's dump as the message, and a valid JSON value that is no JSON-RPC message with -32700
 * "Parse error"; a client then cannot tell its mistake from the server's. Here such messages get the
 * codes JSON-RPC gives them, -32600 and -32602, and a sentence naming the member at fault.
 */

/** A JSON-RPC error answer to send instead of handing the message on, with its HTTP status. */
export interface MessageProblem {
  status: number;
  body: { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string } };
}

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;

/** The requests this server answers: a stateless tool server (no resources, prompts, logging or completion). */
const ANSWERED = new Set(['initialize', 'ping', 'tools/list', 'tools/call']);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the params of the methods the server answers must hold, member by member (the rest the SDK checks). */
const PARAMS: Record<string, (params: Json) => string | null> = {
  'tools/call': (p) => {
    if (typeof p.name !== 'string') return 'params.name must be the name of a tool (a string; tools/list names them)';
    if (p.arguments !== undefined && !isObject(p.arguments)) return "params.arguments must be an object of the tool's arguments by name";
    return null;
  },
  'tools/list': (p) => (p.cursor !== undefined && typeof p.cursor !== 'string' ? 'params.cursor must be the string a previous tools/list answered as nextCursor' : null),
  initialize: (p) => {
    if (typeof p.protocolVersion !== 'string') return 'params.protocolVersion must be the protocol version the client speaks (a string such as "2025-06-18")';
    if (!isObject(p.capabilities)) return "params.capabilities must be an object of the client's capabilities ({} for none)";
    if (!isObject(p.clientInfo) || typeof p.clientInfo.name !== 'string' || typeof p.clientInfo.version !== 'string') return 'params.clientInfo must be an object with the client\'s "name" and "version" (strings)';
    return null;
  },
};

/** The answer to a body that is not JSON (`why`: the parser's sentence). */
export const parseError = (why: string): MessageProblem => ({ status: 400, body: { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: `Parse error: ${why}` } } });

/** The first problem with `message` (one message or a batch), or null when it is well formed as far as checked here. */
export function messageProblem(message: unknown): MessageProblem | null {
  if (!Array.isArray(message)) return oneMessageProblem(message);
  if (message.length === 0) return invalidRequest(null, 'an empty batch holds no message');
  for (const m of message) {
    // Not a batch in a batch: each is looked at once, however deep a body nests them.
    const problem = Array.isArray(m) ? invalidRequest(null, 'a batch holds messages, not other batches') : oneMessageProblem(m);
    if (problem) return problem;
  }
  return null;
}

/** The protocol version batching left MCP with: from it on, a request carries one message. */
const WITHOUT_BATCHES = '2025-06-18';

/**
 * Messages a batch from a client on an older protocol version holds at most. Every call of a batch is
 * answered from the one request's answer budget anyway; a short batch keeps the answer to one request
 * (which the SDK holds until its last call is done) a handful of calls.
 */
export const MAX_BATCH = 20;

/**
 * The protocol version a client speaks, as the SDK takes it: the `MCP-Protocol-Version` header, or
 * the version an initialize request asks for, or the SDK's default for clients that send neither.
 */
export function protocolVersionOf(header: string, message: unknown): string {
  if (header !== '') return header;
  const init = (Array.isArray(message) ? message : [message]).find((m) => isObject(m) && m.method === 'initialize');
  const asked = isObject(init) && isObject(init.params) ? init.params.protocolVersion : undefined;
  return typeof asked === 'string' ? asked : DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
}

/** Why a well-formed batch (see messageProblem) is not taken from a client on `protocolVersion`, or null. */
export function batchProblem(message: unknown, protocolVersion: string): MessageProblem | null {
  if (!Array.isArray(message)) return null;
  // ISO dates: later versions sort later (and a version that is no date is no older one).
  if (!(protocolVersion < WITHOUT_BATCHES)) {
    return invalidRequest(null, `protocol version ${protocolVersion.slice(0, 40)} has no JSON-RPC batches (MCP dropped them in ${WITHOUT_BATCHES}); send each message in a request of its own`);
  }
  if (message.length > MAX_BATCH) return invalidRequest(null, `a batch holds at most ${MAX_BATCH} messages, this one ${message.length}; send the rest in other requests`);
  // The SDK answers one request per id: a second one with the same id would run, and its answer be dropped.
  const ids = new Set<unknown>();
  for (const m of message as Json[]) {
    if (m.method === undefined || m.id === undefined) continue;
    if (ids.has(m.id)) return invalidRequest(null, `the batch holds two requests with the id ${JSON.stringify(m.id).slice(0, 40)}; give each its own`);
    ids.add(m.id);
  }
  return null;
}

/** The members of a request or notification, and of an answer a client sends back; the SDK refuses any other. */
const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);
const ANSWER_MEMBERS = new Set(['jsonrpc', 'id', 'result', 'error']);

function oneMessageProblem(message: unknown): MessageProblem | null {
  if (!isObject(message)) return invalidRequest(null, 'the body must be a JSON-RPC message: an object with "jsonrpc": "2.0" and a "method"');
  // MCP's ids are strings or integers.
  const id = typeof message.id === 'string' || Number.isSafeInteger(message.id) ? (message.id as string | number) : null;
  if (message.jsonrpc !== '2.0') return invalidRequest(id, '"jsonrpc" must be "2.0"');
  if (message.id !== undefined && id === null) return invalidRequest(null, '"id" must be a string or an integer');
  // Answers and errors a client sends back (to requests of the server's) carry no method.
  const answer = message.method === undefined && ('result' in message || 'error' in message);
  const members = answer ? ANSWER_MEMBERS : REQUEST_MEMBERS;
  const extra = Object.keys(message).find((k) => !members.has(k));
  if (extra !== undefined) return invalidRequest(id, `"${extra.slice(0, 40)}" is not a member of a JSON-RPC ${answer ? 'answer' : 'message'} (it holds ${[...members].join(', ')})`);
  if (answer) {
    if ('result' in message && !isObject(message.result)) return invalidRequest(id, '"result" must be an object');
    if ('error' in message && (!isObject(message.error) || !Number.isSafeInteger(message.error.code) || typeof message.error.message !== 'string')) return invalidRequest(id, '"error" must be an object with an integer "code" and a "message"');
    return null;
  }
  if (typeof message.method !== 'string') return invalidRequest(id, '"method" must be a string such as "tools/call"');
  if (message.params !== undefined && !isObject(message.params)) return invalidParams(id, '"params" must be an object');
  if (isObject(message.params) && message.params._meta !== undefined && !isObject(message.params._meta)) return invalidParams(id, 'params._meta must be an object');
  // A request for a method the server does not answer (notifications are the SDK's to ignore).
  if (id !== null && !ANSWERED.has(message.method)) {
    return { status: 200, body: { jsonrpc: '2.0', id, error: { code: METHOD_NOT_FOUND, message: `Method not found: "${message.method.slice(0, 60)}" (this server answers ${[...ANSWERED].join(', ')})` } } };
  }
  // The method is the caller's: "constructor" or "__proto__" is no method of ours, not a property of every object.
  const check = Object.hasOwn(PARAMS, message.method) ? PARAMS[message.method] : undefined;
  const problem = check ? check((message.params ?? {}) as Json) : null;
  return problem === null ? null : invalidParams(id, problem);
}

const invalidRequest = (id: string | number | null, message: string): MessageProblem => ({
  status: 400,
  body: { jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: `Invalid Request: ${message}` } },
});

// A request whose params are wrong is still a request: answered like any other, with 200.
const invalidParams = (id: string | number | null, message: string): MessageProblem => ({
  status: 200,
  body: { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: `Invalid params: ${message}` } },
});
