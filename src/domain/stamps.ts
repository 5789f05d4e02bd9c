/**
 * Timestamps written by hand (`updatedAt` in front matter, `createdAt` and `updatedAt` in
 * version.json). Date.parse takes far more than ISO 8601 and moves what it takes: "2026-02-31" is
 * read as March 3rd, "2026-13-45" as February 2027, "1" as the year 2001. A stamp is read only when
 * it means one moment as written.
 *
 * Taken: a date (`2026-01-31`, midnight UTC) or a date and time (`2026-01-31T12:00`, seconds and
 * their fraction optional), with `T`, `t` or a space between them as YAML allows, and a zone `Z`, an
 * offset (`+02:00`, `+0200`, `+02`) or none (UTC, as YAML reads it).
 */

const STAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?[ ]?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** The moment `text` names, in ms since 1970, or why it names none (a sentence part: "… is not a timestamp: <why>"). */
export function readIsoStamp(text: string): { ms: number } | { problem: string } {
  const m = STAMP.exec(text.trim());
  if (m === null) return { problem: 'write it as 2026-01-31 or 2026-01-31T12:00:00Z' };
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  // Date.UTC reads the years 0 to 99 as 1900 to 1999, and no help page was written before 1970 anyway.
  if (year < 1970) return { problem: `the year ${m[1]} is before 1970` };
  if (month < 1 || month > 12) return { problem: `there is no month ${m[2]}` };
  if (day < 1 || day > daysIn(year, month)) return { problem: `${MONTHS[month - 1]} ${year} has no day ${m[3]}` };
  if (hour > 23) return { problem: `there is no hour ${m[4]} (00 to 23)` };
  if (minute > 59) return { problem: `there is no minute ${m[5]} (00 to 59)` };
  if (second > 59) return { problem: `there is no second ${m[6]} (00 to 59; leap seconds are not kept)` };
  let offset = 0;
  const zone = m[8];
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const [h, min] = [Number(digits.slice(0, 2)), Number(digits.slice(2) || 0)];
    if (h > 23 || min > 59) return { problem: `the offset ${zone} is not one (at most ±23:59)` };
    offset = (zone[0] === '-' ? -1 : 1) * (h * 60 + min);
  }
  const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  return { ms: Date.UTC(year, month - 1, day, hour, minute, second, fraction) - offset * 60_000 };
}

/**
 * A stamp as a file holds it: the ISO form (toISOString) of the moment it names; null when it is
 * absent, or when it names none, with `ignored` told why (`notText` says it of a value of another type).
 */
export function fileStamp(value: unknown, ignored: (why: string) => void, notText: (value: unknown) => string): string | null {
  if (value === undefined || value === null) return null;
  const read = typeof value === 'string' ? readIsoStamp(value) : { problem: notText(value) };
  if ('problem' in read) {
    ignored(read.problem);
    return null;
  }
  return new Date(read.ms).toISOString();
}

const daysIn = (year: number, month: number) => (month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
