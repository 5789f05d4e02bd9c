/**
 * Rules for the names that become paths in the content repository: version slugs (a folder),
 * node slugs (a file name) and language codes (a folder). Nothing that passes these checks can
 * contain a path separator, a `..` segment or anything git refuses in a tree entry. And the few other
 * names and codes the service checks as they come: node ids, icons, tokens.
 */

/**
 * Names Windows keeps for devices (`con`, `nul`, `com1`, …), with or without an extension: a file or
 * folder of such a name cannot be checked out there, and writers edit content repositories on Windows too.
 */
const WINDOWS_RESERVED = '(?:con|prn|aux|nul|com[1-9]|lpt[1-9])';
/** One of those names, alone or before a dot (`con`, `con.1`). */
const WINDOWS_RESERVED_NAME = `${WINDOWS_RESERVED}(?:\\.|$)`;
const windowsReservedRe = new RegExp(`^${WINDOWS_RESERVED_NAME}`);
/** Whether `name` (a slug, lowercase) is one of Windows's device names, alone or before a dot. */
export const isWindowsReserved = (name: string) => windowsReservedRe.test(name);

/** Lowercase letters and digits, separated by single `-`, `_` or `.`; 1–64 characters; `latest` and Windows's device names are reserved. */
export const VERSION_SLUG_PATTERN = `^(?!latest$)(?!${WINDOWS_RESERVED_NAME})[a-z0-9]+(?:[._-][a-z0-9]+)*$`;
export const VERSION_SLUG_MAX = 64;

/** Lowercase letters and digits, separated by single `-` or `_`; 1–100 characters; not one of Windows's device names. */
export const NODE_SLUG_PATTERN = `^(?!${WINDOWS_RESERVED}$)[a-z0-9]+(?:[_-][a-z0-9]+)*$`;
export const NODE_SLUG_MAX = 100;

/**
 * A node id given in an import or a hand-written version.json: 1–100 characters, none of them a
 * control character (a NUL or a line break in an id breaks every log line and file that shows it),
 * and no white space at either end. Ids are never paths; the service's own are UUIDs.
 */
export const NODE_ID_PATTERN = '^[^\\p{Cc}\\s](?:[^\\p{Cc}]*[^\\p{Cc}\\s])?$';
export const NODE_ID_MAX = 100;
const nodeIdRe = new RegExp(NODE_ID_PATTERN, 'u');
export const isNodeId = (s: string) => s.length <= NODE_ID_MAX && nodeIdRe.test(s);

/**
 * Titles, summaries and version labels hold no control characters other than tabs and line breaks
 * (LF, CR, and NEL, which YAML writes as \\N): a NUL, an escape or a bell in a title is no text a
 * reader can see, and breaks terminals, PDF outlines and the tools that show it. Tabs and line breaks
 * are kept as written, as they always were. A title is not only white space.
 */
// The control characters (\p{Cc}) spelled as ranges: the schemas go to clients whose regular expressions lack \p.
const TEXT_CHARS = '[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x84\\x86-\\x9f]';
export const TITLE_PATTERN = `^(?!\\s*$)${TEXT_CHARS}*$`;
export const TEXT_PATTERN = `^${TEXT_CHARS}*$`;

/** Why `text` may not be a title, summary or label, as a sentence part ("must not hold … (it holds U+0000)"); null if it may. */
export function controlProblem(text: string): string | null {
  const found = /[^\t\n\r\x85\P{Cc}]/u.exec(text);
  if (found === null) return null;
  return `must not hold control characters other than tabs and line breaks (it holds U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')})`;
}

/**
 * A token or key sent in an Authorization header: visible ASCII, no spaces. One that is not (a line
 * break copied with it) could never be sent or matched, and failed where the error quoted it.
 */
export const isHeaderToken = (s: string) => /^[\x21-\x7e]+$/.test(s);

/** Icon names as icon sets spell them (`rocket`, `book-open`): lowercase words joined by `-`. */
export const ICON_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
export const ICON_MAX = 64;

/** The shape of a BCP 47 tag that the service accepts (language, optional script, region, variants). */
export const LANGUAGE_PATTERN = '^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$';

const versionSlugRe = new RegExp(VERSION_SLUG_PATTERN);
const nodeSlugRe = new RegExp(NODE_SLUG_PATTERN);
const languageRe = new RegExp(LANGUAGE_PATTERN);

export const isVersionSlug = (s: string) => s.length <= VERSION_SLUG_MAX && versionSlugRe.test(s);
export const isNodeSlug = (s: string) => s.length <= NODE_SLUG_MAX && nodeSlugRe.test(s);

/**
 * The canonical form of a language code (`pt-br` → `pt-BR`), or null when it is not valid BCP 47.
 * Canonical case keeps one folder per language on case-insensitive file systems.
 */
export function canonicalLanguage(code: string): string | null {
  // Every read names a language: the few codes in use are canonicalized once (Intl takes microseconds).
  const known = canonical.get(code);
  if (known !== undefined) return known;
  let result: string | null = null;
  if (languageRe.test(code)) {
    try {
      const [c] = Intl.getCanonicalLocales(code);
      result = c && languageRe.test(c) ? c : null;
    } catch {
      result = null;
    }
  }
  // Bounded: a caller sending endless distinct codes only loses the memo, never memory.
  if (canonical.size >= 1000) canonical.clear();
  canonical.set(code, result);
  return result;
}

const canonical = new Map<string, string | null>();
