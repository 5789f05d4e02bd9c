import { AppError } from '../errors.ts';
import type { Actor } from '../http/actor.ts';

/**
 * The text the tool server answers with, counted in characters: at most HELP_MCP_ANSWER_MCHARS per
 * HTTP request, every call of a batch together, and at most HELP_MCP_CALLER_MCHARS per caller and
 * minute. An answer is built as a JSON value, then serialized twice (the text item and the
 * structured content) and once more with the whole batch: a cap per call let one small request of
 * a hundred calls take hundreds of megabytes. Each call is charged after its value is built (the
 * value shares the stored strings; building it costs little) and before anything is serialized,
 * checking and charging in one synchronous step, so calls and requests running at once cannot all
 * pass the same check.
 */

const WINDOW_MS = 60_000;
/** Callers whose minute is remembered at most: windows that ended go first, then the oldest. */
const MAX_CALLERS = 10_000;

/** `4.2 M`, `16 M`, `950 K`: characters for a sentence. */
const amount = (chars: number) => (chars >= 100_000 ? `${+(chars / 1e6).toFixed(1)} M` : `${Math.round(chars / 1e3)} K`);

/**
 * Characters of text in a JSON value: its strings and member names (numbers, booleans and the
 * punctuation add little). Walks the value without building anything, and stops once past `above`.
 */
export function textOf(value: unknown, above = Number.POSITIVE_INFINITY): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return 0;
  let chars = 0;
  if (Array.isArray(value)) {
    for (const item of value) if ((chars += textOf(item, above - chars)) > above) break;
    return chars;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    chars += key.length + textOf((value as Record<string, unknown>)[key], above - chars - key.length);
    if (chars > above) break;
  }
  return chars;
}

/** Characters answered per caller in fixed windows of a minute, in bounded memory (as src/oauth/rate-limit.ts). */
export class CallerWindows {
  private readonly windows = new Map<string, { used: number; endsAt: number }>();

  constructor(
    readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Characters `caller` may still be answered with in its window. */
  left(caller: string): number {
    const w = this.windows.get(caller);
    return !w || w.endsAt <= this.now() ? this.limit : Math.max(0, this.limit - w.used);
  }

  /** Seconds until `caller` is answered again when its window is spent, else 0. */
  wait(caller: string): number {
    return this.left(caller) > 0 ? 0 : this.secondsLeft(caller);
  }

  /** Seconds until the caller's window ends (1 at least). */
  secondsLeft(caller: string): number {
    const w = this.windows.get(caller);
    return w ? Math.max(1, Math.ceil((w.endsAt - this.now()) / 1000)) : 1;
  }

  charge(caller: string, chars: number): void {
    const now = this.now();
    const w = this.windows.get(caller);
    if (w && w.endsAt > now) w.used += chars;
    else this.open(caller, chars, now);
  }

  /** Spends the rest of the window: a caller who asked for more than was left is answered again when it ends. */
  spend(caller: string): void {
    this.charge(caller, this.left(caller));
  }

  private open(caller: string, used: number, now: number): void {
    if (this.windows.size >= MAX_CALLERS) {
      for (const [k, w] of this.windows) if (w.endsAt <= now) this.windows.delete(k);
      if (this.windows.size >= MAX_CALLERS) this.windows.delete(this.windows.keys().next().value!);
    }
    this.windows.delete(caller);
    this.windows.set(caller, { used, endsAt: now + WINDOW_MS });
  }
}

/** The caller a budget per minute is kept for: the credential, or the client's address when anonymous. */
export function callerOf(actor: Actor | null, address: string): string {
  if (actor === null) return `address ${address}`;
  return actor.kind === 'api_key' ? `key ${actor.key.hash}` : `account ${actor.account}`;
}

/** The refusal of a caller whose minute is spent, before its request is looked at (HTTP 429 with Retry-After). */
export function callerSpent(windows: CallerWindows, caller: string): AppError | null {
  const retryAfter = windows.wait(caller);
  if (retryAfter === 0) return null;
  return new AppError(
    'too_many_requests',
    `The tool server answered this caller with the ${amount(windows.limit)} characters of text it answers one caller with per minute (HELP_MCP_CALLER_MCHARS); retry in ${retryAfter} s, or read through the REST API`,
    { limit: 'mcp_caller_chars', max: windows.limit, retryAfter },
  );
}

/**
 * The text every request being answered holds together, whoever sent it: each request's budget
 * bounds one answer, and the slots bound how many are answered at once, but sixteen answers of
 * 16 M characters are gigabytes of serialized copies. A request's characters go back when its
 * response closes.
 */
export class AnswerPool {
  private held = 0;

  constructor(readonly max: number) {}

  /** Holds `chars` when they fit beside what other requests hold. */
  take(chars: number): boolean {
    if (this.held + chars > this.max) return false;
    this.held += chars;
    return true;
  }

  /** Holds `chars` whether or not they fit: a write's answer, whose change is made already. */
  force(chars: number): void {
    this.held += chars;
  }

  give(chars: number): void {
    this.held = Math.max(0, this.held - chars);
  }
}

/** The text one HTTP request to the tool server is answered with, every call of a batch together. */
export class AnswerBudget {
  private used = 0;
  private released = false;

  constructor(
    readonly max: number,
    private readonly caller: string,
    private readonly windows: CallerWindows,
    private readonly pool: AnswerPool,
  ) {}

  /** Gives the request's characters back to the pool: its answer is sent, failed or dropped. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.pool.give(this.used);
  }

  /** Refuses an answer known to hold `chars` characters before it is built; charges nothing. */
  expect(chars: number, what: string, instead: string): void {
    this.refusal(chars, what, instead, true);
  }

  /** Charges the answer `value` of a call, or refuses it (the value is then dropped unserialized). */
  take(value: unknown, what: string, instead: string): void {
    // Past the whole budget the count stops: such an answer is refused whatever its size.
    const chars = textOf(value, this.max);
    this.refusal(chars, what, instead, false);
    // A request answered after its response closed holds nothing: there is no answer to send.
    if (this.released || !this.pool.take(chars)) {
      throw new AppError('too_many_requests', `${what} would answer ${amount(chars)} characters of text, and the tool server is answering other requests with most of the ${amount(this.pool.max)} it holds at once (four times HELP_MCP_ANSWER_MCHARS); retry in a moment`, { limit: 'mcp_answer_pool', max: this.pool.max, retryAfter: 1 });
    }
    this.used += chars;
    this.windows.charge(this.caller, chars);
  }

  /**
   * Charges a write's answer without refusing it: the change is made, and its answer is the only
   * record of it a caller gets. It echoes about what the request sent, which the body limit bounds.
   */
  count(value: unknown): void {
    const chars = textOf(value);
    if (!this.released) this.pool.force(chars);
    this.used += chars;
    this.windows.charge(this.caller, chars);
  }

  private refusal(chars: number, what: string, instead: string, estimate: boolean): void {
    const would = `${what} would answer ${!estimate && chars > this.max ? 'more than ' : ''}${amount(chars)} characters of text`;
    if (chars > this.max) {
      throw new AppError('limit_exceeded', `${would}; a tool-server request answers at most ${amount(this.max)} (HELP_MCP_ANSWER_MCHARS), every call of a batch together: ${instead}`, { limit: 'mcp_answer_chars', max: this.max });
    }
    if (chars > this.max - this.used) {
      throw new AppError('limit_exceeded', `${would}, and the earlier calls of this request's batch took ${amount(this.used)} of the ${amount(this.max)} a tool-server request answers (HELP_MCP_ANSWER_MCHARS): send the call in a request of its own`, { limit: 'mcp_answer_chars', max: this.max });
    }
    const left = this.windows.left(this.caller);
    if (chars > left) {
      this.windows.spend(this.caller);
      const retryAfter = this.windows.secondsLeft(this.caller);
      throw new AppError('too_many_requests', `${would}, and this caller was answered with ${amount(this.windows.limit - left)} of the ${amount(this.windows.limit)} the tool server answers one caller with per minute (HELP_MCP_CALLER_MCHARS): retry in ${retryAfter} s, or read through the REST API`, { limit: 'mcp_caller_chars', max: this.windows.limit, retryAfter });
    }
  }
}
