/**
 * Where JSON text first goes wrong, and what was expected there, in a writer's words. JSON.parse
 * names a position for some mistakes only ("Unexpected token ']', "…" is not valid JSON" for a
 * trailing comma names none, and pastes the text into the message), so a hand-written version.json
 * got no line. One pass over the text, with an explicit stack: nesting costs no recursion.
 */

export interface JsonSyntaxError {
  /** Offset of the character at fault (the text's length for a text that ends too soon). */
  at: number;
  message: string;
}

type Expect = 'value' | 'key' | 'colon' | 'after';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/** The first syntax error of `text`, or null when it is JSON. */
export function jsonSyntaxError(text: string): JsonSyntaxError | null {
  // Containers open at this point: '{' or '['.
  const stack: string[] = [];
  let expect: Expect = 'value';
  // Where the last token was a comma, or -1 (a closing bracket right after it is a trailing comma).
  let comma = -1;
  let i = 0;
  const n = text.length;
  const found = (at: number) => (at >= n ? 'the end of the file' : JSON.stringify(text[at]));
  for (;;) {
    while (i < n && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
    const c = text[i];
    if (expect === 'value' || expect === 'key') {
      if ((c === ']' || c === '}') && comma >= 0) return { at: comma, message: `a comma before "${c}": JSON allows none after the last item` };
      if (expect === 'key') {
        if (c === '}' && stack.at(-1) === '{') {
          stack.pop();
          expect = 'after';
          i++;
          continue;
        }
        if (c !== '"') return { at: i, message: `expected a key in double quotes, found ${found(i)}` };
      } else if (c === ']' && stack.at(-1) === '[') {
        stack.pop();
        expect = 'after';
        i++;
        continue;
      }
      comma = -1;
      if (c === '"') {
        const end = stringEnd(text, i);
        if (typeof end !== 'number') return end;
        i = end;
        expect = expect === 'key' ? 'colon' : 'after';
        continue;
      }
      if (expect === 'key') return { at: i, message: `expected a key in double quotes, found ${found(i)}` };
      if (c === '{' || c === '[') {
        stack.push(c);
        expect = c === '{' ? 'key' : 'value';
        i++;
        continue;
      }
      NUMBER.lastIndex = i;
      LITERAL.lastIndex = i;
      if (NUMBER.test(text)) i = NUMBER.lastIndex;
      else if (LITERAL.test(text)) i = LITERAL.lastIndex;
      else return { at: i, message: `expected a value (a string in double quotes, a number, true, false, null, { or [), found ${found(i)}` };
      expect = 'after';
      continue;
    }
    if (expect === 'colon') {
      if (c !== ':') return { at: i, message: `expected ":" after the key, found ${found(i)}` };
      expect = 'value';
      i++;
      continue;
    }
    // After a value: the end, a comma, or the closing bracket of the container.
    const open = stack.at(-1);
    if (open === undefined) return i >= n ? null : { at: i, message: `expected the end of the file after the value, found ${found(i)}` };
    const close = open === '{' ? '}' : ']';
    if (c === ',') {
      expect = open === '{' ? 'key' : 'value';
      comma = i;
      i++;
    } else if (c === close) {
      stack.pop();
      i++;
    } else return { at: i, message: `expected "," or "${close}", found ${found(i)}` };
  }
}

/** The offset after the string that opens at `start`, or the error in it. */
function stringEnd(text: string, start: number): number | JsonSyntaxError {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return { at: i, message: c === 0x0a ? 'a string that is not closed on its line (a missing ")' : 'a control character inside a string (write it as an escape such as \\t)' };
    if (c === 0x5c) {
      const e = text[i + 1];
      if (e === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return { at: i, message: 'a \\u escape needs four hexadecimal digits' };
        i += 5;
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
      else return { at: i, message: `an escape JSON does not have (\\${e ?? ''}); a backslash itself is written \\\\` };
    }
  }
  return { at: text.length, message: 'a string that is never closed (a missing ")' };
}
