// Seeded Markdown lines mixing every syntax character, Unicode and white space, for the differential
// tests of the plain text and the snippets made from it.

/** A deterministic sequence of numbers in [0, 1) (mulberry32). */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces of Markdown lines: every syntax character alone and in the constructs it makes, near misses, Unicode and white space of every kind. */
const PIECES = [
  ...'<>[]()!|*_~`\\#-+:./=',
  ...['1', '12', '123456789', '1234567890', 'a', 'b', 'h', 'x', 'X', 'word', 'snake_case', '__init__', 'a__b', '_a_', '*a*', '**b**', '~~c~~', '`d`', '``e``'],
  ...['http://', 'https://', 'https://ex.org/a_b', '<https://ex.org/x>', '<http://a>', '<!--', '-->', '<!---->', '<a>', '</b>', '<br/>', '<a href="x">', '<a -->', '<a\u00a0b>'],
  ...['[x](y)', '![a](b)', '[a][b]', '[![i](s)](u)', '[a](b)(c)', '[]()', '![]()', '](', '][', '[ ] ', '[x] ', '[X] ', '[1]: http://x', '[a]:b'],
  ...['- ', '* ', '+ ', '1. ', '2) ', '## ', '# ', '####### ', '> ', '>', '> > ', '---', '***', '___', '- - -', '| --- |', '|:--:|', ':---:', '| ', ' |', '```', '~~~', '~~'],
  ...['\\*', '\\_', '\\\\', '\\[', '\\>', '\\`', '\\a'],
  ...[' ', ' ', ' ', '  ', '\t', '\v', '\f', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\r', '\r\n', '\n'],
  ...['日本語', '。', 'é', 'e\u0301', 'ß', '😀', '\ud800', '\udc00', '𝐀', '²', 'ع', 'ـ', '_😀_', '_é_', 'é_é', '日_本', '𝐀_𝐀'],
];

export function generatedLine(next: () => number): string {
  let line = '';
  let pipes = 0;
  for (let i = 0, n = 1 + Math.floor(next() * 16); i < n; i++) {
    let piece = PIECES[Math.floor(next() * PIECES.length)];
    // The earlier table-rule expression backtracks exponentially through lines of many white-space
    // cells (the linear-time tests below have one), so the generated lines keep to a few pipes.
    if (piece.includes('|') && ++pipes > 6) piece = 'a';
    else if (!piece.includes('|') && next() < 0.03) piece = piece.repeat([2, 3, 150, 201, 499, 500, 501, 2001][Math.floor(next() * 8)]);
    line += piece;
  }
  return line;
}
