import { Readable } from 'node:stream';

/** One ref update a push asks for: `old new ref`, ids of 40 hex digits (all zeros: none). */
export interface PushCommand {
  old: string;
  new: string;
  ref: string;
}

/**
 * The start of a push's request: its commands, the capabilities the client chose, and the pack that
 * follows. No commands: git's probe (a lone flush-pkt, sent before a large push's body to check the
 * credential), answered with nothing.
 */
export interface PushRequest {
  commands: PushCommand[];
  capabilities: Set<string>;
  /** The rest of the body (the pack; empty for a push that only deletes). */
  pack: Readable;
}

/** The request is not a push git would send: refused with this message, the body unread beyond it. */
export class PushRequestError extends Error {}

/** The push's request stopped coming within HELP_GIT_TIMEOUT: the client's delay, not its syntax. */
export class PushTimeoutError extends PushRequestError {}

export const ZERO_ID = '0'.repeat(40);
/** The largest pkt-line git writes (LARGE_PACKET_MAX), its four length digits included. */
const MAX_PKT = 65520;
/** Commands one push may carry: one ref is taken, a few more are answered each with its refusal. */
const MAX_COMMANDS = 100;
const ID = /^[0-9a-f]{40}$/;

/**
 * Reads the command list that opens a receive-pack request (protocol v0/v1 over HTTP): pkt-lines
 * `old new ref`, the first with the client's capabilities after a NUL, then a flush. What follows
 * is left unread in `pack`. The input is hostile until parsed: lengths are checked before anything
 * is buffered (at most one pkt-line), and a body that ends before the flush is an error, not a wait.
 */
export async function readPushCommands(input: Readable): Promise<PushRequest> {
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  let buf = Buffer.alloc(0);
  const need = async (n: number, what: string): Promise<void> => {
    while (buf.length < n) {
      const next = await chunks.next();
      if (next.done) throw new PushRequestError(`the request ended inside ${what}: a push's commands end with a flush-pkt (0000)`);
      buf = Buffer.concat([buf, typeof next.value === 'string' ? Buffer.from(next.value) : next.value]);
    }
  };
  const commands: PushCommand[] = [];
  let capabilities = new Set<string>();
  for (;;) {
    await need(4, 'a pkt-line length');
    const digits = buf.subarray(0, 4).toString('latin1');
    if (!/^[0-9a-f]{4}$/.test(digits)) throw new PushRequestError(`a pkt-line length must be four lowercase hex digits, not ${JSON.stringify(digits)}`);
    const length = parseInt(digits, 16);
    if (length === 0) {
      buf = buf.subarray(4);
      break;
    }
    if (length < 5) throw new PushRequestError(`pkt-line length ${digits} is not a command (a delim or response-end packet has no place in a push's commands)`);
    if (length > MAX_PKT) throw new PushRequestError(`pkt-line length ${length} is more than git's largest (${MAX_PKT})`);
    await need(length, 'a pkt-line');
    let line = buf.subarray(4, length);
    buf = buf.subarray(length);
    if (commands.length === 0) {
      const nul = line.indexOf(0);
      if (nul >= 0) {
        capabilities = new Set(line.subarray(nul + 1).toString('latin1').replace(/\n$/, '').split(' ').filter((c) => c !== ''));
        line = line.subarray(0, nul);
      }
    }
    const text = line.toString('latin1').replace(/\n$/, '');
    if (text.startsWith('shallow ')) throw new PushRequestError('a push from a shallow clone is not taken: clone whole (without --depth) and push from there');
    if (text.startsWith('push-cert')) throw new PushRequestError('signed pushes are not taken');
    const parts = text.split(' ');
    if (parts.length !== 3 || !ID.test(parts[0]) || !ID.test(parts[1]) || parts[2] === '' || /[\x00-\x20\x7f]/.test(parts[2])) {
      throw new PushRequestError(`a push command is "<old id> <new id> <ref>" with ids of 40 lowercase hex digits, not ${JSON.stringify(text.slice(0, 120))}`);
    }
    if (commands.length >= MAX_COMMANDS) throw new PushRequestError(`more than ${MAX_COMMANDS} ref updates in one push`);
    commands.push({ old: parts[0], new: parts[1], ref: parts[2] });
  }
  const rest = buf;
  const pack = Readable.from(
    (async function* () {
      if (rest.length > 0) yield rest;
      for (;;) {
        const next = await chunks.next();
        if (next.done) return;
        yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      }
    })(),
    { objectMode: false },
  );
  return { commands, capabilities, pack };
}
