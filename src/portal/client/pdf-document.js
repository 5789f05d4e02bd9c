// A PDF bundle → a pdfmake document definition: title page, table of contents with page numbers,
// ancestors as chapter headings, running header and footer, and each entry's Markdown as blocks
// (headings, paragraphs, lists, tables, code in a monospace font, links, same-origin images).

const A4_TEXT_WIDTH = 595.28 - 2 * 56;
/** Characters the PDF standard Courier can show (WinAnsi); code with others is set in the text's font. */
const WIN_ANSI = /^[\t\n\r\x20-\x7e\xa0-\xff\u2013\u2014\u2018\u2019\u201a\u201c\u201d\u201e\u2020\u2021\u2022\u2026\u2030\u20ac\u2122]*$/;

/** The font families the document uses (only those: a German PDF does not load the Japanese font), and their files. */
export function fontsOf(bundle) {
  const families = new Map();
  for (const f of bundle.fonts) {
    if (!families.has(f.family)) families.set(f.family, { languages: f.languages });
    const italic = f.style === 'italic';
    families.get(f.family)[f.weight === 700 ? (italic ? 'bolditalics' : 'bold') : italic ? 'italics' : 'normal'] = f.url;
  }
  const familyFor = (language) => {
    for (const [family, f] of families) if (f.languages.includes(language)) return family;
    return bundle.template.fontFamily;
  };
  const used = new Set([bundle.template.fontFamily, ...bundle.entries.map((e) => familyFor(e.language))]);
  const definitions = {};
  const files = [];
  for (const family of used) {
    const f = families.get(family);
    if (!f) continue;
    // Families without italics (CJK, Arabic, Thai) set emphasis upright, as their type does.
    definitions[family] = { normal: f.normal, bold: f.bold, italics: f.italics ?? f.normal, bolditalics: f.bolditalics ?? f.bold };
    files.push(...new Set([f.normal, f.bold, f.italics ?? f.normal, f.bolditalics ?? f.bold]));
  }
  return { definitions, files, familyFor };
}

/** The languages of a bundle's text (its language and each entry's) that the service has no font for. */
export function uncoveredIn(bundle) {
  const used = new Set([bundle.language, ...bundle.entries.map((e) => e.language)]);
  return (bundle.template.uncoveredLanguages ?? []).filter((language) => used.has(language));
}

/** The PDF's own text in English: what a language without a catalogue reads. */
const ENGLISH = {
  'pdf.contents': 'Contents',
  'pdf.fallback': 'Not yet available in {language}; shown in {shown}.',
  'pdf.page': '{page} / {pages}',
  'pdf.noFont': 'This help service has no font for {languages}: text in that script may show as empty boxes or be missing.',
};

/**
 * The PDF's own text in `language`, from a table by language (the portal's catalogues, which the
 * served script carries as PDF_TEXTS): the tag, then its language and script (zh-TW → zh-Hant), then
 * its language (pt-BR → pt), else English, key by key.
 */
export function pdfTexts(table, language) {
  const tags = [language];
  try {
    // zh-TW reads the Traditional catalogue (zh-Hant), zh-CN the Simplified one (zh).
    const full = new Intl.Locale(language).maximize();
    tags.push(`${full.language}-${full.script}`, full.language);
  } catch {
    tags.push(String(language).split('-')[0]);
  }
  const found = tags.map((tag) => table?.[tag]).find((t) => t !== undefined) ?? {};
  return { ...ENGLISH, ...found, language };
}

const fill = (text, vars) => text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));

/**
 * What a reader is told, in the dialog and on the title page, when some text of the PDF has no font:
 * in the language of `texts` (from pdfTexts, or the page's messages with their `language`).
 */
export function unfontedNotice(languages, texts = pdfTexts(null, 'en')) {
  const inLanguage = texts.language ?? 'en';
  const names = languages.map((language) => languageName(language, inLanguage));
  let list = names.join(', ');
  try {
    list = new Intl.ListFormat(inLanguage, { type: 'conjunction' }).format(names);
  } catch {
    // An engine without ListFormat: commas.
  }
  return fill(texts['pdf.noFont'] ?? ENGLISH['pdf.noFont'], { languages: list });
}

/** The title page's date (`2026-03-01`) as the language writes it, medium length. */
export function formatDate(language, iso) {
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(iso) ? `${iso}T00:00:00Z` : iso);
  if (Number.isNaN(date.getTime())) return iso;
  try {
    // Without the bidi marks Intl puts in some languages' dates (Arabic): the PDF has no glyph for them.
    return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' }).format(date).replace(/[\u200e\u200f\u061c]/g, '');
  } catch {
    return iso;
  }
}

const SAFE_LINK = /^(https?:|mailto:)/i;

function linkOf(href, pageBase) {
  try {
    const url = new URL(href, pageBase);
    return SAFE_LINK.test(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/** Inline tokens → pdfmake text runs; images of this origin become blocks of their own. */
function inlineParts(children, ctx, font) {
  const out = [];
  let run = [];
  const flush = () => {
    if (run.length > 0) out.push({ text: run });
    run = [];
  };
  const style = { bold: false, italics: false, strike: false, link: null };
  for (const t of children ?? []) {
    // Only what is on: a run's `bold: false` would undo a heading's or a header cell's bold.
    const base = {};
    if (style.bold) base.bold = true;
    if (style.italics) base.italics = true;
    if (style.strike) base.decoration = 'lineThrough';
    if (style.link) Object.assign(base, { link: style.link, color: '#0b57c2', decoration: 'underline' });
    switch (t.type) {
      case 'text': run.push({ text: t.content, ...base }); break;
      case 'softbreak': run.push({ text: ' ' }); break;
      case 'hardbreak': run.push({ text: '\n' }); break;
      case 'code_inline': run.push({ text: t.content, ...base, font: WIN_ANSI.test(t.content) ? 'Courier' : font, background: '#eef0f3' }); break;
      case 'strong_open': style.bold = true; break;
      case 'strong_close': style.bold = false; break;
      case 'em_open': style.italics = true; break;
      case 'em_close': style.italics = false; break;
      case 's_open': style.strike = true; break;
      case 's_close': style.strike = false; break;
      case 'link_open': style.link = linkOf(t.attrGet('href') ?? '', ctx.pageBase); break;
      case 'link_close': style.link = null; break;
      case 'image': {
        const data = ctx.images.get(t.attrGet('src'));
        if (data) {
          flush();
          out.push({ image: data, fit: [A4_TEXT_WIDTH, 360], margin: [0, 4, 0, 4] });
        } else run.push({ text: t.content ? `[${t.content}]` : '[image]', italics: true, color: '#555555' });
        break;
      }
      default: if (t.content) run.push({ text: t.content, ...base });
    }
  }
  flush();
  return out;
}

/** One paragraph-like block: its runs as one text node, images between them as their own. */
const textBlock = (parts, extra) => (parts.length === 1 && parts[0].text ? { ...parts[0], ...extra } : { stack: parts, ...extra });

const RTL_CHAR = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;

/** Whether a language is written right to left (Arabic, Hebrew, Syriac, Thaana, N'Ko scripts). */
function isRightToLeft(language) {
  try {
    return ['Arab', 'Hebr', 'Syrc', 'Thaa', 'Nkoo'].includes(new Intl.Locale(language).maximize().script);
  } catch {
    return false;
  }
}

/**
 * Right-to-left text. pdfmake sets the words of a line left to right, so a paragraph holding Arabic
 * or Hebrew is broken into lines here, by the widths the browser measures with the same font, and
 * each line's words are given in visual order: right-to-left words reversed, runs of left-to-right
 * words (names, numbers, code) kept in their own order. Lines are right-aligned.
 */
function rightToLeft(runs, { font, size, bold = false, width, measure }) {
  const words = [];
  for (const run of runs) {
    for (const piece of String(run.text).split(/(\n)|\s+/)) {
      if (piece === '\n') words.push(null);
      else if (piece) words.push({ ...run, text: piece, width: measure(piece, font, bold || run.bold === true, size) });
    }
  }
  const space = measure(' ', font, bold, size);
  const lines = [[]];
  let used = 0;
  for (const word of words) {
    const line = lines[lines.length - 1];
    if (word === null) {
      lines.push([]);
      used = 0;
    } else if (line.length > 0 && used + space + word.width > width * 0.97) {
      lines.push([word]);
      used = word.width;
    } else {
      line.push(word);
      used += (line.length > 1 ? space : 0) + word.width;
    }
  }
  return lines.map((line) => {
    const groups = [];
    for (const word of line) {
      const rtl = RTL_CHAR.test(word.text);
      if (!rtl && groups.length > 0 && !groups[groups.length - 1].rtl) groups[groups.length - 1].words.push(word);
      else groups.push({ rtl, words: [word] });
    }
    const visual = groups.reverse().flatMap((g) => g.words);
    const text = visual.flatMap((w, i) => {
      const { width: _, ...run } = w;
      return i === 0 ? [run] : [{ text: ' ' }, run];
    });
    return { text: text.length > 0 ? text : ' ', alignment: 'right' };
  });
}

/** A text block, broken into right-to-left lines when it holds right-to-left text and the page can measure. */
function textOrRtl(parts, extra, ctx, font, size, width) {
  const plain = parts.length === 1 && Array.isArray(parts[0].text) ? parts[0].text : null;
  if (!ctx.measure || plain === null || !plain.some((r) => RTL_CHAR.test(r.text))) return textBlock(parts, extra);
  const bold = extra.bold === true || /^(bh|level)/.test(extra.style ?? '');
  return { stack: rightToLeft(plain, { font, size, bold, width, measure: ctx.measure }), ...extra };
}

/** Block tokens from `i` up to the closing token of type `until` → pdfmake nodes. */
function blocks(tokens, i, until, ctx, font) {
  const out = [];
  while (i < tokens.length && tokens[i].type !== until) {
    const t = tokens[i];
    if (t.type === 'heading_open') {
      const level = Number(t.tag.slice(1));
      const style = `bh${Math.min(level, 4)}`;
      out.push(textOrRtl(inlineParts(tokens[i + 1].children, ctx, font), { style }, ctx, font, STYLES[style].fontSize, ctx.width));
      i += 3;
    } else if (t.type === 'paragraph_open') {
      out.push(textOrRtl(inlineParts(tokens[i + 1].children, ctx, font), { margin: t.hidden ? [0, 0, 0, 2] : [0, 0, 0, 6] }, ctx, font, BODY_SIZE, ctx.width));
      i += 3;
    } else if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open') {
      const close = t.type.replace('_open', '_close');
      const items = [];
      i++;
      while (tokens[i].type !== close) {
        const item = blocks(tokens, i + 1, 'list_item_close', { ...ctx, width: ctx.width - 16 }, font);
        items.push(item.nodes.length === 1 ? item.nodes[0] : { stack: item.nodes });
        i = item.i + 1;
      }
      const start = Number(t.attrGet('start') ?? 1);
      if (ctx.rtl) {
        // pdfmake puts list markers on the left; a right-to-left list has them on the right.
        const marker = (k) => (t.type === 'bullet_list_open' ? '•' : `.${start + k}`);
        const body = items.map((item, k) => [item, { text: marker(k), alignment: 'right' }]);
        out.push({ table: { widths: ['*', 16], body }, layout: 'noBorders', margin: [0, 0, 0, 6] });
      } else {
        const list = t.type === 'bullet_list_open' ? { ul: items } : { ol: items, start };
        out.push({ ...list, margin: [0, 0, 0, 6] });
      }
      i++;
    } else if (t.type === 'blockquote_open') {
      const inner = blocks(tokens, i + 1, 'blockquote_close', { ...ctx, width: ctx.width - 14 }, font);
      out.push({ stack: inner.nodes, margin: [14, 0, 0, 6], color: '#444444' });
      i = inner.i + 1;
    } else if (t.type === 'fence' || t.type === 'code_block') {
      const code = t.content.replace(/\n$/, '');
      out.push({
        table: { widths: ['*'], body: [[{ text: code, font: WIN_ANSI.test(code) ? 'Courier' : font, fontSize: 8.5, lineHeight: 1.15, preserveLeadingSpaces: true }]] },
        layout: { fillColor: () => '#f2f4f7', hLineWidth: () => 0, vLineWidth: () => 0, paddingLeft: () => 7, paddingRight: () => 7, paddingTop: () => 5, paddingBottom: () => 5 },
        margin: [0, 2, 0, 8],
      });
      i++;
    } else if (t.type === 'table_open') {
      // Cells are collected first: a right-to-left cell is broken into lines by its column's width.
      const cells = [];
      let row = null;
      for (i++; tokens[i].type !== 'table_close'; i++) {
        const c = tokens[i];
        if (c.type === 'tr_open') row = [];
        else if (c.type === 'tr_close') cells.push(row);
        else if (c.type === 'th_open' || c.type === 'td_open') {
          const align = /text-align:(\w+)/.exec(c.attrGet('style') ?? '')?.[1];
          row.push({ parts: inlineParts(tokens[i + 1].children, ctx, font), extra: { bold: c.type === 'th_open', ...(align ? { alignment: align } : {}) } });
          i += 2;
        }
      }
      const columns = cells[0]?.length ?? 1;
      const cellWidth = ctx.width / columns - 8;
      const rows = cells.map((r) => r.map((cell) => textOrRtl(cell.parts, cell.extra, ctx, font, 9.5, cellWidth)));
      out.push({ table: { headerRows: 1, widths: Array(columns).fill('*'), body: rows }, layout: 'lightHorizontalLines', fontSize: 9.5, margin: [0, 2, 0, 8] });
      i++;
    } else if (t.type === 'hr') {
      out.push({ canvas: [{ type: 'line', x1: 0, y1: 0, x2: A4_TEXT_WIDTH, y2: 0, lineWidth: 0.5, lineColor: '#999999' }], margin: [0, 6, 0, 8] });
      i++;
    } else i++;
  }
  return { nodes: out, i };
}

const languageName = (language, inLanguage) => {
  try {
    return new Intl.DisplayNames([inLanguage], { type: 'language' }).of(language) ?? language;
  } catch {
    return language;
  }
};

/**
 * A line of the PDF's own text (the contents heading, a note, the date) as a block in the font of the
 * PDF's language (a note sits in an entry of another language, set in that one's font): right-to-left
 * text in visual order when the document measures words (see rightToLeft), else as it is.
 */
function ownText(text, style, font, ctx, alignment) {
  const look = STYLES[style] ?? {};
  if (!(ctx.measure && RTL_CHAR.test(text))) return { text, style, font, ...(alignment ? { alignment } : {}) };
  const lines = rightToLeft([{ text }], { font, size: look.fontSize ?? BODY_SIZE, bold: look.bold === true, width: A4_TEXT_WIDTH, measure: ctx.measure });
  const aligned = lines.map((line) => ({ ...line, alignment: alignment ?? line.alignment }));
  return aligned.length === 1 ? { ...aligned[0], style, font } : { stack: aligned, style, font };
}

/** The whole document definition of a bundle. */
export function buildDocument(bundle, ctx) {
  const t = bundle.template;
  // The PDF's own words in its language (ctx.texts from pdfTexts), English without them, and English
  // when the service has no font for that language (a notice saying so must be readable).
  const texts = uncoveredIn(bundle).includes(bundle.language) ? pdfTexts(null, 'en') : (ctx.texts ?? pdfTexts(null, bundle.language));
  const content = [];
  if (t.titlePage) {
    content.push({
      stack: [
        { text: t.title, style: 'title' },
        { text: t.subtitle, style: 'subtitle' },
        ownText(formatDate(bundle.language, t.date), 'date', t.fontFamily, ctx, 'center'),
        ...(uncoveredIn(bundle).length > 0 ? [{ ...ownText(unfontedNotice(uncoveredIn(bundle), texts), 'note', t.fontFamily, ctx, 'center'), margin: [0, 30, 0, 0] }] : []),
      ],
      margin: [0, 180, 0, 0],
      pageBreak: 'after',
    });
  }
  if (t.tableOfContents) content.push({ toc: { title: ownText(texts['pdf.contents'], 'tocTitle', t.fontFamily, ctx), textMargin: [0, 2, 0, 2] }, pageBreak: 'after' });
  bundle.entries.forEach((entry, n) => {
    const font = ctx.fonts.familyFor(entry.language);
    const level = Math.min(entry.level, 3);
    const c = { ...ctx, width: A4_TEXT_WIDTH, rtl: isRightToLeft(entry.language) };
    const heading = { style: `level${level}`, tocItem: true, tocMargin: [(entry.level - 1) * 14, 0, 0, 0], tocStyle: level === 1 ? 'tocChapter' : undefined };
    // A title stays one text node (the table of contents lists it); a right-to-left one in visual order.
    const rtlTitle = ctx.measure && RTL_CHAR.test(entry.title);
    const titleText = rtlTitle ? rightToLeft([{ text: entry.title }], { font, size: 20, bold: true, width: Infinity, measure: ctx.measure })[0].text : entry.title;
    const stack = [{ text: titleText, ...heading, ...(rtlTitle ? { alignment: 'right' } : {}) }];
    if (entry.fallback) stack.push(ownText(fill(texts['pdf.fallback'], { language: languageName(bundle.language, bundle.language), shown: languageName(entry.language, bundle.language) }), 'note', t.fontFamily, ctx));
    if (entry.summary) stack.push(textOrRtl([{ text: [{ text: entry.summary }] }], { style: 'summary' }, c, font, STYLES.summary.fontSize, A4_TEXT_WIDTH));
    if (entry.bodyMd) stack.push(...blocks(ctx.md.parse(entry.bodyMd, {}), 0, null, c, font).nodes);
    content.push({ stack, font, pageBreak: n > 0 && entry.level === 1 ? 'before' : undefined });
  });
  const rtl = t.direction === 'rtl';
  return {
    info: { title: t.subtitle && t.subtitle !== t.title ? `${t.title} – ${t.subtitle}` : t.title, creator: 'Help portal', producer: 'pdfmake' },
    // The document's language (/Lang), for screen readers and text-to-speech.
    language: bundle.language,
    pageSize: t.pageSize,
    pageMargins: [56, 64, 56, 64],
    content,
    defaultStyle: { font: t.fontFamily, fontSize: BODY_SIZE, lineHeight: 1.3, alignment: rtl ? 'right' : 'left' },
    header: (page) => (page === 1 && t.titlePage ? null : { text: t.header, style: 'running', margin: [56, 28, 56, 0], alignment: rtl ? 'right' : 'left' }),
    footer: (page, pages) => (page === 1 && t.titlePage ? null : { text: fill(t.footer === '{page} / {pages}' ? texts['pdf.page'] : t.footer, { page, pages }), style: 'running', alignment: 'center', margin: [56, 24, 56, 0] }),
    styles: STYLES,
  };
}

const BODY_SIZE = 10.5;
const STYLES = {
      title: { fontSize: 30, bold: true, alignment: 'center', margin: [0, 0, 0, 14] },
      subtitle: { fontSize: 16, alignment: 'center', color: '#333333', margin: [0, 0, 0, 30] },
      date: { fontSize: 11, alignment: 'center', color: '#555555' },
      tocTitle: { fontSize: 20, bold: true, margin: [0, 0, 0, 14] },
      tocChapter: { bold: true },
      level1: { fontSize: 20, bold: true, margin: [0, 0, 0, 8] },
      level2: { fontSize: 15, bold: true, margin: [0, 12, 0, 6] },
      level3: { fontSize: 12.5, bold: true, margin: [0, 10, 0, 4] },
      bh1: { fontSize: 14, bold: true, margin: [0, 8, 0, 4] },
      bh2: { fontSize: 12.5, bold: true, margin: [0, 8, 0, 4] },
      bh3: { fontSize: 11.5, bold: true, margin: [0, 6, 0, 3] },
      bh4: { fontSize: 10.5, bold: true, margin: [0, 6, 0, 3] },
      summary: { fontSize: 11, color: '#444444', margin: [0, 0, 0, 8] },
      note: { fontSize: 9, color: '#8a5a00', margin: [0, 0, 0, 6] },
      running: { fontSize: 8.5, color: '#666666' },
};
