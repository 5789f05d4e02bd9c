import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Context, Middleware } from 'koa';
import type { Config } from '../config.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { requireScope, type Actor } from '../http/actor.ts';
import { jsonBodyParser } from '../http/body.ts';
import { toAppError } from '../http/errors.ts';
import { isLoopback } from '../http/loopback.ts';
import { requestLog } from '../http/logging.ts';
import { SERVICE_VERSION } from '../metrics.ts';
import { AnswerBudget, AnswerPool, CallerWindows, callerOf, callerSpent } from './budget.ts';
import { batchProblem, messageProblem, parseError, protocolVersionOf } from './messages.ts';
import { Slots } from './slots.ts';
import { callTool, mcpTools, visibleTools, type McpTool } from './tools.ts';

/** What holds for every tool, said once here rather than in each description. */
const INSTRUCTIONS =
  'Versioned help documentation: each version holds a tree of sections and topics, with a translation (title, summary, Markdown body) per language. ' +
  'To answer a question, search, then fetch the hits worth reading; to browse, list_versions, get_tree, get_topic. ' +
  'Every tool: a version argument takes "latest", the version marked latest (delete_version excepted); the language argument is "language" ("lang" is taken too); numbers and flags are JSON numbers and booleans. ' +
  'Anonymous callers see published versions only; a credential with help:read also sees drafts, archived versions and working copies. ' +
  'Writes need help:write and are each one commit; pass the updatedAt you read as expectedUpdatedAt to refuse a change made meanwhile. ' +
  'While publishing goes through pull requests, published versions are read-only (published_read_only) except to publisher keys: create_working_copy, edit the copy, then create_publish_request. ' +
  'A failed call is a result with isError whose text is {"error": {"code", "message", "field"?}}.';

/** The service's public origin: HELP_PUBLIC_URL, else the request's (Koa 3's `ctx.origin` is the Origin header, not this). */
const originOf = (ctx: Context, config: Config) => config.publicUrl ?? `${ctx.protocol}://${ctx.host}`;

/** The origin is the issuer, or, for a service on a loopback address, another loopback name for it (same scheme and port). */
function sameLoopbackService(origin: string, issuer: string): boolean {
  if (origin === issuer) return true;
  if (!URL.canParse(origin)) return false;
  const a = new URL(origin);
  const b = new URL(issuer);
  return isLoopback(a) && isLoopback(b) && a.protocol === b.protocol && a.port === b.port;
}

/** DNS-rebinding protection: a browser page may call only from the service's own origin or an allowed one. */
function checkOrigin(ctx: Context, config: Config, issuer: string): void {
  const origin = ctx.get('origin');
  // The service's own origin is the issuer (HELP_PUBLIC_URL, or the address it listens on), never the
  // request's Host: in a DNS-rebinding attack a page's own name resolves to the service, so its Origin and Host agree.
  if (origin === '' || sameLoopbackService(origin, issuer) || config.corsOrigins.has(origin) || config.mcpAllowedOrigins.has(origin)) return;
  throw new AppError('forbidden_origin', `The tool server does not take requests from pages on ${origin}; allow the origin with HELP_MCP_ALLOWED_ORIGINS`, { origin });
}

/** Whether a JSON-RPC message (or batch) calls one of the tools that write. */
function callsWriteTool(message: unknown, writes: ReadonlySet<string>): boolean {
  const calls = (m: unknown) => {
    const { method, params } = (m ?? {}) as { method?: unknown; params?: { name?: unknown } };
    return method === 'tools/call' && typeof params?.name === 'string' && writes.has(params.name);
  };
  return Array.isArray(message) ? message.some(calls) : calls(message);
}

/**
 * The MCP tool server on `POST {config.mcpPath}` (Streamable HTTP, stateless, JSON answers): a new
 * SDK server and transport per request, for the caller authentication found. A call of a write tool
 * is refused over HTTP before the transport sees it, without a credential (401) or without
 * help:write (403), with the challenge that makes MCP clients sign in or ask for more scope.
 * What one request costs is bounded: a JSON-RPC batch only from clients on protocol versions that
 * had them, and short; the text of every call's answer together within one budget per request and
 * one per caller and minute (budget.ts); requests answered at once in all and per address (slots.ts).
 */
export function mcpServer(deps: Deps, issuer: string): Middleware {
  const { config } = deps;
  const tools = mcpTools(deps);
  const writes = new Set(tools.filter((t) => t.spec.write).map((t) => t.spec.name));
  const parse = jsonBodyParser(config.bodyLimit);
  const slots = new Slots(config.mcpConcurrency, config.mcpConcurrencyPerAddress);
  const windows = new CallerWindows(config.mcpCallerChars);
  // Four requests' worth of answers at once, however many are being answered (about 6 bytes a character while serialized).
  const pool = new AnswerPool(4 * config.mcpAnswerChars);
  return async (ctx, next) => {
    if (ctx.path !== config.mcpPath) return next();
    ctx.state.route = config.mcpPath;
    checkOrigin(ctx, config, issuer);
    // Stateless: no stream to open with GET and no session to end with DELETE (the SDK's own answer).
    if (ctx.method !== 'POST') {
      ctx.status = 405;
      ctx.set('Allow', 'POST');
      ctx.body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null };
      return;
    }
    const actor = (ctx.state.actor ?? null) as Actor | null;
    const caller = callerOf(actor, ctx.ip);
    // A caller already answered with its minute's text is refused before its body is read.
    const spent = callerSpent(windows, caller);
    if (spent) throw spent;
    // A body too large or of another type is an HTTP answer, as for the API (413, 415); one that is no
    // JSON is JSON-RPC's parse error, which a client's JSON-RPC layer understands.
    const unparsed = await parse(ctx, async () => undefined).then(
      () => null,
      (err: unknown) => {
        const known = toAppError(err, config.bodyLimit);
        // A key given twice is named where it is (body/params/…); for JSON-RPC it is a message that cannot be read either way.
        if (known?.code === 'invalid_json' && /^body(\/|$)/.test(String(known.data.field))) return parseError(known.message);
        // JSON that is no object or array ("x", null): JSON, but no message.
        if (known?.code === 'validation_failed' && known.data.field === 'body') return messageProblem(null);
        throw err;
      },
    );
    if (unparsed) {
      ctx.status = unparsed.status;
      ctx.body = unparsed.body;
      return;
    }
    const message: unknown = ctx.request.body;
    const problem = messageProblem(message);
    if (problem) {
      ctx.status = problem.status;
      ctx.body = problem.body;
      return;
    }
    if (callsWriteTool(message, writes)) requireScope(actor, 'help:write');
    const batch = batchProblem(message, protocolVersionOf(ctx.get('mcp-protocol-version'), message));
    if (batch) {
      ctx.status = batch.status;
      ctx.body = batch.body;
      return;
    }
    if (!slots.hold(ctx.ip, ctx.res)) {
      // The client left while its body was read: nobody to answer.
      ctx.respond = false;
      return;
    }
    // The SDK answers 406 unless Accept names both JSON and event streams; this server answers JSON
    // only, so a client that takes JSON (or says nothing, as curl does) is answered.
    if (acceptsJson(ctx.get('accept'))) ctx.req.headers.accept = 'application/json, text/event-stream';
    const budget = new AnswerBudget(config.mcpAnswerChars, caller, windows, pool);
    ctx.res.once('close', () => budget.release());
    await answer(ctx, toolServer(tools, actor, ctx, deps, budget), message);
  };
}

const acceptsJson = (accept: string) => accept.trim() === '' || /(^|,)\s*(application\/json|application\/\*|\*\/\*)\s*(;|,|$)/i.test(accept);

/** An SDK server for one request: the tools this caller may see, run as this caller. */
function toolServer(tools: readonly McpTool[], actor: Actor | null, ctx: Context, { config, metrics }: Deps, budget: AnswerBudget): Server {
  const server = new Server({ name: 'help-content-service', title: 'Help content', version: SERVICE_VERSION }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  const visible = visibleTools(tools, actor);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: visible.map((t) => t.listing) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = visible.find((t) => t.spec.name === request.params.name);
    // A plain error with a code: McpError would write "MCP error -32602:" into the message too.
    if (!tool) throw Object.assign(new Error(`No tool "${request.params.name}"; tools/list names the tools`), { code: ErrorCode.InvalidParams });
    return callTool(tool.spec, request.params.arguments ?? {}, { actor, origin: originOf(ctx, config), address: ctx.ip, requestId: ctx.state.requestId, log: requestLog(ctx), answer: budget, count: (name, outcome) => metrics.toolCall(name, outcome) });
  });
  return server;
}

/** Hands the request to the transport, which writes the answer itself. */
async function answer(ctx: Context, server: Server, message: unknown): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  ctx.respond = false;
  ctx.res.once('close', () => void server.close());
  try {
    await server.connect(transport);
    await transport.handleRequest(ctx.req, ctx.res, message);
  } catch (err) {
    // Before anything is written, the error boundary answers; after, the log is all that is left.
    if (!ctx.res.headersSent) {
      ctx.respond = true;
      throw err;
    }
    requestLog(ctx).error({ err }, 'tool server failure after the answer began');
  }
}
