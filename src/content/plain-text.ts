/**
 * Markdown → plain text, for the search index and snippets: the words a reader sees, without
 * syntax noise (markers, link targets, HTML tags, table rules). Code stays: readers search for it.
 */
export function plainText(markdown: string): string {
  return markdown
    .replace(/\r\n?/g, '\n')
    .replace(/^ {0,3}(```|~~~).*$/gm, ' ') // code fences (the code itself stays)
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/?[A-Za-z][^>]*>/g, ' ') // HTML tags
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images → alt text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links → their text
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1') // reference links
    .replace(/^\s*\[[^\]]+\]:\s+\S+.*$/gm, ' ') // link definitions
    .replace(/<(https?:\/\/[^>]+)>/g, '$1')
    .replace(/^ {0,3}#{1,6}\s+/gm, '') // heading markers
    .replace(/^ {0,3}>\s?/gm, '') // quotes
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/gm, '') // list markers and task boxes
    .replace(/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/gm, ' ') // table rules
    .replace(/^ {0,3}(?:[-*_]\s*){3,}$/gm, ' ') // thematic breaks
    .replace(/\|/g, ' ')
    .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/(^|[^\w*])[*_](?=\S)([^*_\n]*?\S)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/`+/g, '')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}
