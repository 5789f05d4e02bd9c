/**
 * Markdown → plain text, for the search index and snippets: the words a reader sees, without
 * syntax noise (markers, link targets, HTML tags, table rules). Code stays: readers search for it.
 * Every pattern is bounded (no match spans more than a line or a few hundred characters), so the
 * work is linear in the size of the body whatever a writer puts in it.
 */
export function plainText(markdown: string): string {
  const out: string[] = [];
  for (const raw of markdown.split(/\r\n?|\n/)) {
    const line = plainLine(raw);
    if (line !== '') out.push(line);
  }
  return out.join(' ').replace(/\s+/g, ' ').trim();
}

function plainLine(line: string): string {
  if (/^ {0,3}(```|~~~)/.test(line)) return ''; // code fences (the code itself stays)
  if (/^\s*\[[^\]\n]{1,200}\]:\s+\S/.test(line)) return ''; // link definitions
  if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{0,200}:?\s*){0,100}\|?\s*$/.test(line)) return ''; // table rules
  if (/^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return ''; // thematic breaks
  return line
    .replace(/<!--|-->/g, ' ')
    .replace(/<\/?[A-Za-z][^<>\n]{0,500}>/g, ' ') // HTML tags
    .replace(/!\[([^[\]\n]{0,500})\]\([^()\n]{0,2000}\)/g, '$1') // images → alt text
    .replace(/\[([^[\]\n]{0,500})\]\([^()\n]{0,2000}\)/g, '$1') // links → their text
    .replace(/\[([^[\]\n]{0,500})\]\[[^[\]\n]{0,200}\]/g, '$1') // reference links
    .replace(/<(https?:\/\/[^<>\s]{1,2000})>/g, '$1')
    .replace(/^ {0,3}#{1,6}\s+/, '') // heading markers
    .replace(/^(\s*>)+\s?/, '') // quotes
    .replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/, '') // list markers and task boxes
    .replace(/\|/g, ' ')
    .replace(/\*+|~~|`+/g, '') // emphasis and code markers
    .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1') // _emphasis_, not snake_case
    .replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, '$1');
}
