// The PDF of a selection, made in the reader's browser: the API's PDF bundle (entries, template,
// fonts) → a pdfmake document → a file saved under the bundle's name. Loaded by portal.js only when
// a reader asks for a PDF. Markdown is parsed with markdown-it (raw HTML off) into pdfmake's blocks;
// only fonts and images of this origin are fetched.

/** An error the dialog explains in words (a refused selection, a failed download). */
export class PdfProblem extends Error {
  constructor(message, data = {}) {
    super(message);
    this.data = data;
  }
}

/**
 * The page's interface text in its language, from the JSON element every portal page carries for its
 * scripts (English already stands in for a key its language lacks): the dialog's progress and errors.
 */
let pageMessages = null;
function say(key, vars = {}) {
  if (pageMessages === null) {
    try {
      pageMessages = JSON.parse(document.getElementById('portal-messages')?.textContent ?? '{}');
    } catch {
      pageMessages = {};
    }
  }
  const text = pageMessages[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

const scripts = new Map();
/** Loads a classic script of this origin once (pdfmake's browser build sets window.pdfMake). */
function loadScript(src) {
  if (!scripts.has(src)) {
    scripts.set(src, new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = src;
      s.onload = resolve;
      s.onerror = () => reject(new PdfProblem(say('pdf.libraryFailed')));
      document.head.append(s);
    }));
  }
  return scripts.get(src);
}

const sameOrigin = (url) => {
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
};

/** The bundle of a selection; a refused selection (more than 200 topics, unknown slugs) becomes a PdfProblem. */
async function fetchBundle(api, version, language, topics) {
  const params = new URLSearchParams({ lang: language });
  if (topics.length > 0) params.set('topics', topics.join(','));
  const res = await fetch(`${api}/versions/${encodeURIComponent(version)}/pdf-bundle?${params}`);
  if (res.ok) return res.json();
  const error = (await res.json().catch(() => ({}))).error ?? {};
  if (error.code === 'invalid_selection' && error.max) {
    throw new PdfProblem(say('pdf.tooMany', { topics: error.topics, max: error.max }), error);
  }
  throw new PdfProblem(error.message ? say('pdf.prepareFailed', { reason: error.message }) : say('pdf.prepareStatus', { status: res.status }), error);
}

const fontFiles = new Map();
/** Fetches the font files the document uses into pdfmake's virtual file system, reporting each one. */
async function loadFonts(pdfMake, files, report) {
  let done = 0;
  await Promise.all(files.map(async (url) => {
    if (!fontFiles.has(url)) {
      const res = await fetch(url);
      if (!res.ok) throw new PdfProblem(`A font could not be loaded (status ${res.status}).`);
      const bytes = await res.arrayBuffer();
      fontFiles.set(url, bytes.slice(0));
      pdfMake.virtualfs.writeFileSync(url, bytes);
    }
    report(++done, files.length);
  }));
}

/**
 * Widths of words as the PDF will set them, for breaking right-to-left lines: the same font files,
 * given to the browser as FontFaces, measured on a canvas (points and pixels scale alike).
 */
async function measurer(definitions) {
  for (const [family, files] of Object.entries(definitions)) {
    for (const [weight, url] of [['400', files.normal], ['700', files.bold]]) {
      const face = new FontFace(`pdf ${family}`, fontFiles.get(url).slice(0), { weight });
      await face.load();
      document.fonts.add(face);
    }
  }
  const g = document.createElement('canvas').getContext('2d');
  return (text, family, bold, size) => {
    g.font = `${bold ? 700 : 400} ${size}px "pdf ${family}"`;
    return g.measureText(text).width;
  };
}

const RTL_TEXT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;

/** Fetches a same-origin PNG or JPEG image as a data URL (null for anything else: it is shown as its text). */
async function loadImage(url) {
  if (!sameOrigin(url)) return null;
  try {
    const res = await fetch(new URL(url, location.href));
    if (!res.ok) return null;
    const bytes = new Uint8Array(await res.arrayBuffer());
    const png = bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
    const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8;
    if (!png && !jpeg) return null;
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return `data:image/${png ? 'png' : 'jpeg'};base64,${btoa(binary)}`;
  } catch {
    return null;
  }
}

/**
 * Renders and saves the PDF. `options`: api (base path), version (slug or latest), language,
 * topics (slugs; empty for the whole version), assets ({ pdfmake, courier, markdownIt }),
 * portal (the portal's base path, for links between topics), onProgress(fraction|null, text).
 */
export async function downloadPdf(options) {
  const { onProgress } = options;
  onProgress(null, say('pdf.preparing'));
  const [bundle] = await Promise.all([
    fetchBundle(options.api, options.version, options.language, options.topics),
    loadScript(options.assets.pdfmake),
  ]);
  await loadScript(options.assets.courier);
  const { default: markdownit } = await import(options.assets.markdownIt);
  const pdfMake = window.pdfMake;
  // Fonts and images come from this origin only.
  pdfMake.setUrlAccessPolicy((url) => sameOrigin(url));

  const { buildDocument, fontsOf, uncoveredIn, unfontedNotice, pdfTexts, PDF_TEXTS } = await import(options.assets.layout);
  // The PDF's own words in its language, which the dialog may have set apart from the page's.
  const texts = pdfTexts(PDF_TEXTS, bundle.language);
  const fonts = fontsOf(bundle);
  onProgress(0, say('pdf.fonts'));
  await loadFonts(pdfMake, fonts.files, (n, of) => onProgress((0.3 * n) / of, say('pdf.fontsProgress', { n, total: of })));
  pdfMake.setFonts({ ...fonts.definitions, Courier: { normal: 'Courier', bold: 'Courier-Bold', italics: 'Courier-Oblique', bolditalics: 'Courier-BoldOblique' } });

  onProgress(0.3, say('pdf.images'));
  const md = markdownit({ html: false, linkify: false });
  const images = new Map();
  for (const entry of bundle.entries) {
    for (const token of md.parse(entry.bodyMd, {})) {
      for (const child of token.children ?? []) {
        const src = child.type === 'image' ? child.attrGet('src') : null;
        if (src && !images.has(src)) images.set(src, await loadImage(src));
      }
    }
  }

  onProgress(0.35, say('pdf.layout'));
  const rtl = bundle.template.direction === 'rtl' || bundle.entries.some((e) => RTL_TEXT.test(e.title + e.bodyMd));
  const measure = rtl ? await measurer(fonts.definitions) : null;
  const docDefinition = buildDocument(bundle, { md, images, fonts, measure, texts, width: 0, pageBase: `${location.origin}${options.portal}/${bundle.version.slug}/` });
  pdfMake.setProgressCallback((fraction) => onProgress(0.4 + 0.55 * fraction, say('pdf.layoutProgress', { percent: Math.round(fraction * 100) })));
  const pdf = pdfMake.createPdf(docDefinition);
  await pdf.download(bundle.filename);
  const unfonted = uncoveredIn(bundle);
  onProgress(1, `${say('pdf.saved', { filename: bundle.filename })}${unfonted.length > 0 ? ` ${unfontedNotice(unfonted, pdfTexts(PDF_TEXTS, document.documentElement.lang || 'en'))}` : ''}`);
  return { filename: bundle.filename, topics: bundle.entries.filter((e) => !e.heading && e.kind === 'topic').length, uncovered: unfonted };
}
