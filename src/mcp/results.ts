import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppError } from '../errors.ts';
import { LANGUAGE } from './arguments.ts';

/** A tool's answer: the REST answer as structured content, and the same JSON as text. */
export function toolResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

/**
 * A tool's failure: the body the REST API answers with, `{ error: { code, message, ... } }`, as a
 * result with `isError`. The domain names the field at fault as the REST API has it (`body/slug`,
 * `path/lang`); a tool takes the route's path, query and body fields side by side as its arguments,
 * so here they are `arguments/slug`, `arguments/language`.
 */
export function errorResult(error: AppError, requestId: unknown): CallToolResult {
  const { field, errors, offending, ...data } = error.data as { field?: unknown; errors?: unknown; offending?: unknown };
  const located: Record<string, unknown> = { ...data };
  let message = error.message;
  if (typeof field === 'string') {
    located.field = asArgument(field);
    if (message.startsWith(`${field} `)) message = `${located.field as string}${message.slice(field.length)}`;
  }
  message = inToolNames(message);
  const relocate = (list: unknown[]) => list.map((e) => (typeof (e as { field?: unknown })?.field === 'string' ? { ...(e as object), field: asArgument((e as { field: string }).field) } : e));
  if (Array.isArray(errors)) located.errors = relocate(errors);
  // An import's problems name their fields too (body/nodes/3/parentSlug).
  if (Array.isArray(offending)) located.offending = relocate(offending);
  const body = { error: { code: error.code, message, ...located, requestId } };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

/**
 * `body/translations/de/title` → `arguments/translations/de/title`; `body` alone (the whole change) →
 * `arguments`; the language, which some routes call `lang`, by the name every tool gives it.
 */
const asArgument = (field: string): string => inToolNames(field.replace(/^(?:body|path|query)(?=\/|$)/, 'arguments'));
const inToolNames = (text: string): string => text.replace(/\barguments\/lang\b/g, `arguments/${LANGUAGE}`);

