import { isAscii, isUtf8, transcode } from 'node:buffer';

/**
 * Bytes of UTF-8 as a string, as `bytes.toString('utf8')` makes it, only faster for the texts that
 * cost most. V8 decodes UTF-8 a character at a time: 2.6 ns per byte for Japanese, the largest part
 * of the main thread's CPU in reading such files from git. ICU's converter writes UTF-16 at about
 * 0.2 ns per byte. It is used only for a text with a character from U+0100 on near its start, which
 * V8 would hold as UTF-16 anyway: for a text in Latin-1 (German, French) the converter is about three
 * times as fast too, but its UTF-16 copy, twice the size of the text and garbage at once, left the
 * service about 5 MB larger at rest on a 9 MB set. ASCII is copied as Latin-1. Bytes that are not
 * valid UTF-8, which the converter refuses, are decoded as before, each bad sequence a U+FFFD.
 */
export function utf8Text(bytes: Buffer): string {
  if (bytes.length < MIN_BYTES) return bytes.toString('utf8');
  if (isAscii(bytes)) return bytes.toString('latin1');
  if (!startsWide(bytes) || !isUtf8(bytes)) return bytes.toString('utf8');
  try {
    return transcode(bytes, 'utf8', 'ucs2').toString('utf16le');
  } catch {
    // A Node built without ICU has no converter.
    return bytes.toString('utf8');
  }
}

/** Shorter texts decode in less time than the checks take. */
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
