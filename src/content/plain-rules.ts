/**
 * The rules that make a Markdown line plain text, a regular expression each, applied one after the
 * other to what the one before left. plain-structure.ts and plain-inline.ts give the same text in a
 * scan or two; the lines they leave to these (links and HTML nested in ways where the order of the
 * rules matters) are rare. Every pattern is bounded or anchored, so the work is linear in the line.
 * The line is not one dropped whole (plain-text.ts has looked), and its white space is collapsed after.
 */
export function plainByRules(line: string): string {
  // Each step runs only when its marker is there: most lines need few of them.
  let s = line;
  if (s.includes('<')) {
    s = s
      .replace(/<!--|-->/g, ' ')
      .replace(/<\/?[A-Za-z][^<>\n]{0,500}>/g, ' '); // HTML tags
  } else if (s.includes('-->')) s = s.replace(/-->/g, ' ');
  if (s.includes('[')) {
    s = s
      .replace(/!\[([^[\]\n]{0,500})\]\([^()\n]{0,2000}\)/g, '$1') // images → alt text
      .replace(/\[([^[\]\n]{0,500})\]\([^()\n]{0,2000}\)/g, '$1') // links → their text
      .replace(/\[([^[\]\n]{0,500})\]\[[^[\]\n]{0,200}\]/g, '$1'); // reference links
  }
  if (s.includes('<')) s = s.replace(/<(https?:\/\/[^<>\s]{1,2000})>/g, '$1'); // autolinks
  if (s.includes('#')) s = s.replace(/^ {0,3}#{1,6}\s+/, ''); // heading markers
  if (s.includes('>')) s = s.replace(/^(\s*>)+\s?/, ''); // quotes
  s = s.replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/, ''); // list markers and task boxes
  if (s.includes('|')) s = s.replace(/\|/g, ' ');
  if (/[*~`]/.test(s)) s = s.replace(/\*+|~~|`+/g, ''); // emphasis and code markers
  if (s.includes('_')) s = s.replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1'); // _emphasis_, not snake_case
  if (s.includes('\\')) s = s.replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, '$1');
  return s;
}
