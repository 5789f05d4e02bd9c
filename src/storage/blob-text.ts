import { isAscii, isUtf8, transcode } from 'node:buffer';

/**
 * A file's bytes as text, as `bytes.toString('utf8')` makes it, only faster for the texts that cost
 * most; and where they are not UTF-8 (the text then holds U+FFFD there, as Node decodes it). Node's
 * validators (isAscii, isUtf8) decide both at once, each run once per file. V8 decodes UTF-8 a
 * character at a time: 2.6 ns per byte for Japanese, the largest part of the main thread's CPU in
 * reading such files from git. ICU's converter writes UTF-16 at about 0.2 ns per byte. It is used
 * only for a text with a character from U+0100 on near its start, which V8 would hold as UTF-16
 * anyway: for a text in Latin-1 (German, French) the converter is about three times as fast too, but
 * its UTF-16 copy, twice the size of the text and garbage at once, left the service about 5 MB larger
 * at rest on a 9 MB set. ASCII is copied as Latin-1.
 */
export function blobText(bytes: Buffer): { text: string; bad: NotUtf8 | null } {
  if (isAscii(bytes)) return { text: bytes.toString('latin1'), bad: null };
  if (!isUtf8(bytes)) return { text: bytes.toString('utf8'), bad: badPlace(bytes) };
  return { text: bytes.length >= MIN_BYTES && startsWide(bytes) ? converted(bytes) : bytes.toString('utf8'), bad: null };
}

/** blobText's text alone. */
export const utf8Text = (bytes: Buffer): string => blobText(bytes).text;

/** Valid UTF-8 as UTF-16, through ICU's converter. */
function converted(bytes: Buffer): string {
  try {
    return transcode(bytes, 'utf8', 'ucs2').toString('utf16le');
  } catch {
    // A Node built without ICU has no converter.
    return bytes.toString('utf8');
  }
}

/** A byte as messages name it: 0xE9. */
export const byteName = (value: number) => `0x${value.toString(16).toUpperCase().padStart(2, '0')}`;

/** The problem with a file that is not UTF-8, for the list of a version's problems (which gives the line). */
export const notUtf8Problem = (bad: NotUtf8) =>
  `is not UTF-8: byte ${byteName(bad.value)} starts no UTF-8 character here (the file was saved in another encoding, such as Latin-1 or Windows-1252; save it as UTF-8)`;

/** Where bytes stop being UTF-8: the byte's offset and its line (from 1). */
export interface NotUtf8 {
  byte: number;
  /** The byte there. */
  value: number;
  line: number;
}

/**
 * The first place `bytes` are not UTF-8, or null when they all are. Such a file was written in another
 * encoding (Latin-1, Windows-1252, Shift JIS): read as UTF-8, each bad sequence would become U+FFFD,
 * and the service's next write of it would store those in place of the writer's characters.
 */
export function notUtf8(bytes: Uint8Array): NotUtf8 | null {
  return isAscii(bytes) || isUtf8(bytes) ? null : badPlace(bytes);
}

/** Where bytes that are not UTF-8 first go wrong. */
function badPlace(bytes: Uint8Array): NotUtf8 {
  const at = firstBadSequence(bytes);
  let line = 1;
  for (let i = bytes.indexOf(LF); i >= 0 && i < at; i = bytes.indexOf(LF, i + 1)) line++;
  return { byte: at, value: bytes[at], line };
}

const LF = 0x0a;

/** The offset of the first sequence that is not well-formed UTF-8 (Unicode's table 3-7), or bytes.length. */
function firstBadSequence(bytes: Uint8Array): number {
  const n = bytes.length;
  const cont = (i: number, lo = 0x80, hi = 0xbf) => i < n && bytes[i] >= lo && bytes[i] <= hi;
  for (let i = 0; i < n; ) {
    const b = bytes[i];
    if (b < 0x80) i++;
    else if (b >= 0xc2 && b <= 0xdf && cont(i + 1)) i += 2;
    else if (b >= 0xe0 && b <= 0xef && cont(i + 1, b === 0xe0 ? 0xa0 : 0x80, b === 0xed ? 0x9f : 0xbf) && cont(i + 2)) i += 3;
    else if (b >= 0xf0 && b <= 0xf4 && cont(i + 1, b === 0xf0 ? 0x90 : 0x80, b === 0xf4 ? 0x8f : 0xbf) && cont(i + 2) && cont(i + 3)) i += 4;
    else return i;
  }
  return n;
}

/** Shorter texts decode in less time than looking for wide characters takes. */
const MIN_BYTES = 256;
/** Bytes looked at for a character from U+0100 on. */
const SCAN_BYTES = 1024;
/** UTF-8 sequences that start with this byte or a higher one encode characters from U+0100 on. */
const WIDE_LEAD = 0xc4;

function startsWide(bytes: Buffer): boolean {
  const end = Math.min(bytes.length, SCAN_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] >= WIDE_LEAD) return true;
  return false;
}
