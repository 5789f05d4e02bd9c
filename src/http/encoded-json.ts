import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { nestedTree } from '../domain/tree.ts';
import { nextTurn, sliceEnd, TURN_CHARS } from '../slices.ts';

/**
 * Large strings of an answer (a topic's Markdown body) kept as the JSON text they serialize to, so
 * that an answer built again — the same page under another URL or language fallback, or after a
 * write elsewhere in its version moved the version's generation — does not escape and encode the
 * body once more: that was about a third of the server's work for a topic read.
 *
 * A route marks such a string with `encodedString(owner, value)`; the owner is the immutable object
 * the string belongs to (a translation: an edit makes a new one, and the old entry ages out). A
 * string that is not worth keeping but may be long (a write's answer echoing the body it stored) is
 * marked with `longString(value)`. `JsonEncoder.serialize` writes the answer with JSON.stringify, a
 * placeholder standing for each marked string, and returns the bytes around each placeholder and the
 * text of each marked string as pieces. A marked string longer than TURN_CHARS is encoded a slice at a
 * time, with a turn of the event loop between slices: a 5 MB body escaped and encoded at once held
 * every other request for about 15 ms. A long list marked with `encodedList(items, present)` is
 * presented and serialized a slice of items at a time (a version's 10,000 nodes took about 60 ms in
 * one piece). Anywhere else a marked string or list serializes as the plain value it holds.
 */

/** The placeholder: unguessable, so answer text cannot forge it (and if it ever did, see serialize). */
const MARK = `\u0000${randomBytes(12).toString('base64url')}`;
const QUOTED_MARK = JSON.stringify(MARK);

/** Items of a marked list presented and serialized in one turn of the event loop. */
const LIST_SLICE = 256;

/** The marked strings and lists met by the serialization running now, in the order they appear in its text. */
let collecting: Array<EncodedString | EncodedList | EncodedTree> | null = null;

class EncodedString {
  constructor(
    /** What its memoized text is kept under; null: not kept. */
    readonly owner: object | null,
    readonly value: string,
  ) {}

  toJSON(): string {
    if (collecting === null) return this.value;
    collecting.push(this);
    return MARK;
  }
}

/** A list presented and serialized LIST_SLICE items a turn by a JsonEncoder (a version's nodes); anywhere else, or when short, the array. */
class EncodedList {
  constructor(
    readonly items: readonly unknown[],
    readonly present: (item: never) => unknown,
  ) {}

  toJSON(): unknown {
    if (collecting === null || this.items.length <= LIST_SLICE) return this.items.map(this.present as (item: unknown) => unknown);
    collecting.push(this);
    return MARK;
  }
}

/**
 * A tree presented and serialized LIST_SLICE nodes a turn by a JsonEncoder (a version's navigation:
 * 10,000 nodes took 12–27 ms in one piece); anywhere else, or when small, the nested arrays. Each
 * node is its presented fields and then its `children`, the same JSON either way.
 */
class EncodedTree {
  constructor(
    readonly roots: readonly string[],
    readonly size: number,
    readonly childrenOf: (node: string) => readonly string[],
    readonly present: (node: string) => Record<string, unknown>,
  ) {}

  toJSON(): unknown {
    if (collecting === null || this.size <= LIST_SLICE) return nestedTree(this.roots, this.childrenOf, this.present);
    collecting.push(this);
    return MARK;
  }
}

/** The `size` nodes under `roots` as nested `{ ...present(node), children }`, presented and serialized a slice at a time when a JsonEncoder writes them. */
export const encodedTree = (roots: readonly string[], size: number, childrenOf: (node: string) => readonly string[], present: (node: string) => Record<string, unknown>): unknown =>
  new EncodedTree(roots, size, childrenOf, present);

/** `items.map(present)`, presented and serialized a slice at a time when a JsonEncoder writes it. */
export const encodedList = <T>(items: readonly T[], present: (item: T) => unknown): unknown => new EncodedList(items, present);

/** `value`, to be serialized from memoized JSON text kept under `owner` when a JsonEncoder writes it. */
export const encodedString = (owner: object, value: string): unknown => new EncodedString(owner, value);

/** `value`, serialized by a JsonEncoder without keeping its text (in slices when long). */
export const longString = (value: string): unknown => new EncodedString(null, value);

/** Serializes answers, splicing in the text of their marked strings (at most `maxBytes` of it kept). */
export class JsonEncoder {
  private readonly memo: LRUCache<object, { value: string; bytes: Buffer }> | null;

  constructor(maxBytes: number) {
    this.memo = maxBytes > 0 ? new LRUCache<object, { value: string; bytes: Buffer }>({ maxSize: maxBytes, sizeCalculation: (e) => e.bytes.length + 64 }) : null;
  }

  /**
   * The JSON text of `answer` as UTF-8, in pieces: the text of each marked string is one piece of
   * its own, not copied into a joined buffer (a topic body is most of a topic answer's bytes). A
   * promise only when a marked string is encoded in slices: the answers read most are not.
   */
  serialize(answer: unknown): Buffer[] | Promise<Buffer[]> {
    const marked: Array<EncodedString | EncodedList | EncodedTree> = [];
    collecting = marked;
    let text: string;
    try {
      text = JSON.stringify(answer);
    } finally {
      collecting = null;
    }
    if (marked.length === 0) return [Buffer.from(text, 'utf8')];
    const parts = text.split(QUOTED_MARK);
    // Text that happened to hold the placeholder would misplace the splices: write it plainly.
    if (parts.length !== marked.length + 1) return [Buffer.from(JSON.stringify(answer), 'utf8')];
    // The text of every marked string, as long as TURN_CHARS allow in this turn; the rest (null) after.
    const texts: Array<Buffer | Buffer[] | null> = [];
    let chars = 0;
    let deferred = false;
    for (const m of marked) {
      const kept = m instanceof EncodedString ? this.kept(m) : undefined;
      if (kept !== undefined) texts.push(kept);
      else if (deferred || !(m instanceof EncodedString) || chars + m.value.length > TURN_CHARS) {
        texts.push(null);
        deferred = true;
      } else {
        texts.push(this.encodeNow(m));
        chars += m.value.length;
      }
    }
    const splice = () => {
      const pieces: Buffer[] = [];
      for (let i = 0; i < marked.length; i++) {
        pieces.push(Buffer.from(parts[i], 'utf8'));
        const t = texts[i]!;
        if (Buffer.isBuffer(t)) pieces.push(t);
        else for (const piece of t) pieces.push(piece);
      }
      pieces.push(Buffer.from(parts[marked.length], 'utf8'));
      return pieces;
    };
    if (!deferred) return splice();
    // The rest TURN_CHARS a turn (a list of every body of a version is hundreds of MB), a long one in
    // slices of its own, a list LIST_SLICE items a turn.
    return (async () => {
      for (let i = 0; i < marked.length; i++) {
        if (texts[i] !== null) continue;
        const m = marked[i];
        if (!(m instanceof EncodedString)) {
          texts[i] = await (m instanceof EncodedList ? this.listInSlices(m) : this.treeInSlices(m));
          chars = TURN_CHARS;
          continue;
        }
        if (chars + Math.min(m.value.length, TURN_CHARS) > TURN_CHARS) {
          await nextTurn();
          chars = 0;
        }
        if (m.value.length > TURN_CHARS) {
          texts[i] = this.keep(m, await encodeInSlices(m.value));
          chars = TURN_CHARS;
        } else {
          texts[i] = this.encodeNow(m);
          chars += m.value.length;
        }
      }
      return splice();
    })();
  }

  /** The JSON of a marked list: LIST_SLICE items presented and serialized (marks within them too) per turn. */
  private async listInSlices(list: EncodedList): Promise<Buffer[]> {
    const present = list.present as (item: unknown) => unknown;
    const pieces: Buffer[] = [];
    for (let from = 0; from < list.items.length; from += LIST_SLICE) {
      await nextTurn();
      const serialized = this.serialize(list.items.slice(from, from + LIST_SLICE).map(present));
      const inner = serialized instanceof Promise ? await serialized : serialized;
      // Each slice is an array of its own: its brackets give way to the list's, and to commas between slices.
      inner[0] = inner[0].subarray(1);
      inner[inner.length - 1] = inner[inner.length - 1].subarray(0, -1);
      pieces.push(Buffer.from(from === 0 ? '[' : ','), ...inner);
    }
    pieces.push(Buffer.from(']'));
    return pieces;
  }

  /**
   * The JSON of a marked tree, written depth first: each node's presented fields as JSON.stringify
   * writes them, then `"children":[`, its children, `]}`; LIST_SLICE nodes per turn.
   */
  private async treeInSlices(tree: EncodedTree): Promise<Buffer[]> {
    const pieces: Buffer[] = [];
    let text = '[';
    let written = 0;
    // The siblings being written at each level, and how many of them are written.
    const levels: Array<{ nodes: readonly string[]; next: number }> = [{ nodes: tree.roots, next: 0 }];
    while (levels.length > 0) {
      const level = levels[levels.length - 1];
      if (level.next === level.nodes.length) {
        levels.pop();
        text += levels.length > 0 ? ']}' : ']';
        continue;
      }
      const node = level.nodes[level.next++];
      const fields = JSON.stringify(tree.present(node));
      text += `${level.next > 1 ? ',' : ''}${fields.slice(0, -1)}${fields === '{}' ? '' : ','}"children":[`;
      levels.push({ nodes: tree.childrenOf(node), next: 0 });
      if (++written % LIST_SLICE === 0) {
        pieces.push(Buffer.from(text, 'utf8'));
        text = '';
        await nextTurn();
      }
    }
    pieces.push(Buffer.from(text, 'utf8'));
    return pieces;
  }

  /** The kept JSON text of a marked string, if it is kept. */
  private kept(s: EncodedString): Buffer | undefined {
    const kept = s.owner === null ? undefined : this.memo?.get(s.owner);
    return kept !== undefined && kept.value === s.value ? kept.bytes : undefined;
  }

  /** The JSON text of a short marked string, made now (and kept when it has an owner). */
  private encodeNow(s: EncodedString): Buffer {
    return this.keep(s, Buffer.from(JSON.stringify(s.value), 'utf8'));
  }

  /** `bytes` as the kept text of `s` when it has an owner (in memory of their own: see ownBytes). */
  private keep(s: EncodedString, bytes: Buffer): Buffer {
    if (s.owner === null || this.memo === null) return bytes;
    const own = ownBytes(bytes);
    this.memo.set(s.owner, { value: s.value, bytes: own });
    return own;
  }
}

/**
 * What JSON.stringify(value) encodes to, byte for byte, escaped and encoded TURN_CHARS at a time
 * with a turn of the event loop between slices (none ending inside a surrogate pair).
 */
export async function encodeInSlices(value: string): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for (let from = 0; from < value.length; ) {
    const to = sliceEnd(value, from, TURN_CHARS);
    const json = Buffer.from(JSON.stringify(value.slice(from, to)), 'utf8');
    // The opening quote is the first slice's, the closing one the last's.
    pieces.push(json.subarray(from === 0 ? 0 : 1, to === value.length ? json.length : json.length - 1));
    from = to;
    if (from < value.length) await nextTurn();
  }
  return Buffer.concat(pieces);
}

/**
 * `bytes`, in memory of their own: Buffer.from() puts a small string's bytes in a shared 8 KB slab,
 * and a kept answer of 100 bytes would hold the whole slab while the cache counted 100.
 */
export function ownBytes(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}
