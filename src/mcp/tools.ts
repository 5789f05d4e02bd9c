import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { requireScope, type Actor } from '../http/actor.ts';
import type { AnswerBudget } from './budget.ts';
import { readTools } from './read-tools.ts';
import { errorResult, toolResult } from './results.ts';
import { listing, readArguments, type ToolSpec } from './tool.ts';
import { formatTopicId, type TopicId } from './topic-links.ts';
import { writeTools } from './write-tools.ts';

/** A tool with its listing, whose schemas are built once, at start. */
export interface McpTool {
  spec: ToolSpec;
  listing: Tool;
}

/** Every tool of the tool server: the reads first, then the writes. */
export function mcpTools(deps: Deps): McpTool[] {
  return [...readTools(deps), ...writeTools(deps)].map((spec) => ({ spec, listing: listing(spec) }));
}

/** The tools a caller is shown: anonymous callers see those that need no help:write (the reads, and feedback on a page). */
export const visibleTools = (tools: readonly McpTool[], actor: Actor | null) => (actor === null ? tools.filter((t) => !t.spec.write) : tools);

export interface CallContext {
  actor: Actor | null;
  origin: string;
  /** The client's address (ctx.ip). */
  address: string;
  requestId: unknown;
  log: Logger;
  /** The HTTP request's answer budget, shared by every call of a batch. */
  answer: AnswerBudget;
  /** Counts the call by tool and outcome (`ok` or the error code). */
  count(tool: string, outcome: string): void;
}

/** What to do instead when a tool's answer is too large and the tool names nothing better. */
const READ_ELSEWHERE = 'read the same through the REST API, which answers without this limit';

/** What an answer is called in a refusal: the tool, and the version or topic it read. */
function answerName(name: string, args: Record<string, unknown>): string {
  if (typeof args.version === 'string') return `${name} of version "${args.version}"`;
  const id = args.id as TopicId | undefined;
  return id === undefined ? name : `${name} of "${formatTopicId(id.version, id.language, id.slug)}"`;
}

/** An error whose hint names REST routes, with the tools that do the same instead. */
function inToolTerms(err: AppError): AppError {
  if (err.code !== 'published_read_only' || typeof err.data.version !== 'string') return err;
  const version = err.data.version;
  // A version this change would publish goes live through a request from itself; a published one through its working copy.
  const publishing = typeof err.data.hint === 'string' && err.data.hint.startsWith('keep it a draft');
  const hint = publishing
    ? `keep it a draft (status "draft"), then create_publish_request with version "${version}"`
    : `create_working_copy with version "${version}", edit the copy ("${version}-wip"), then create_publish_request with version "${version}-wip"`;
  return new AppError(err.code, err.message, { ...err.data, hint });
}

/**
 * Runs a tool: the scope check, the arguments checked with the registry's schemas, the tool's work.
 * A failure of the caller's or the domain's (an AppError) is a result with `isError` carrying the
 * REST API's error body, never a protocol error; anything else is logged and answered as
 * `internal_error` without details, as the API's error boundary does.
 */
export async function callTool(tool: ToolSpec, given: Record<string, unknown>, context: CallContext): Promise<CallToolResult> {
  const { result, outcome } = await runTool(tool, given, context);
  context.count(tool.name, outcome);
  return result;
}

/** A tool's result, and how it ended: `ok`, or the code of the error it answers. */
async function runTool(tool: ToolSpec, given: Record<string, unknown>, { actor, origin, address, requestId, log, answer }: CallContext): Promise<{ result: CallToolResult; outcome: string }> {
  try {
    if (tool.write) requireScope(actor, 'help:write');
    const { args, body } = readArguments(tool, given);
    const value = await tool.run({ actor, args, body, origin, address, answer });
    // Once built (the value shares the stored strings) and before anything is serialized; the check and
    // the charge are one synchronous step, so calls running at once cannot all pass the same check.
    if (tool.write) answer.count(value);
    else answer.take(value, answerName(tool.name, args), tool.instead ?? READ_ELSEWHERE);
    return { result: toolResult(value), outcome: 'ok' };
  } catch (err) {
    if (err instanceof AppError) {
      if (err.status >= 500 && err.cause !== undefined) log.error({ err: err.cause, code: err.code, tool: tool.name }, err.message);
      return { result: errorResult(inToolTerms(err), requestId), outcome: err.code };
    }
    log.error({ err, tool: tool.name }, 'unexpected error');
    return { result: errorResult(new AppError('internal_error', 'Something went wrong on our side; the request id identifies it in the log'), requestId), outcome: 'internal_error' };
  }
}
