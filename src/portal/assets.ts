import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT, type PortalConfig } from '../config.ts';
import { CATALOGUES, messagesFor } from './i18n/messages.ts';

/**
 * The portal's static files, each served under a name holding a hash of its bytes
 * (`portal.3f9c2a1b0d.css`), so a page can name them for a year (`immutable`) and a new release
 * still reaches every reader at once. Read once, when the portal is built.
 */
export interface Asset {
  /** The name pages use: stem, hash, extension. */
  readonly name: string;
  readonly type: string;
  readonly body: Buffer;
}

export type AssetId = 'css' | 'script' | 'pdf' | 'pdfLayout' | 'pdfmake' | 'courier' | 'markdownIt' | 'icon';

const require = createRequire(import.meta.url);
const packageFile = (pkg: string, file: string) => join(dirname(require.resolve(`${pkg}/package.json`)), file);
// From the project folder, so that the built server (dist/main.js) finds them as the sources do.
const clientFile = (file: string) => join(PROJECT_ROOT, 'src', 'portal', 'client', file);
const vendorFile = (pkg: string, file: string) => join(PROJECT_ROOT, 'vendor', pkg, file);

type Brand = Pick<PortalConfig, 'accent' | 'favicon'>;

interface Source {
  stem: string;
  ext: string;
  type: string;
  path: () => string;
  /** The bytes served, when they are more than the file's (the brand's colours, the PDF's texts). */
  build?: (brand: Brand) => Buffer;
}

const ICON_TYPES: Record<string, string> = { svg: 'image/svg+xml', png: 'image/png', ico: 'image/x-icon' };

/** The brand's accent as custom properties after the stylesheet's own, so they win; the dark variant in the dark scheme. */
function brandCss(brand: Brand): string {
  if (brand.accent === null) return '';
  const { light, dark, lightText, darkText } = brand.accent;
  return `\n/* The brand accent (HELP_PORTAL_ACCENT), checked for contrast at start. */
:root { --accent: ${light}; --link: ${light}; --accent-fg: ${lightText}; }
@media (prefers-color-scheme: dark) { :root { --accent: ${dark}; --link: ${dark}; --accent-fg: ${darkText}; } }
@media print { :root { --link: #000; } }
`;
}

/** The keys of the PDF's own text, in every shipped language: the PDF's language may differ from the page's. */
const PDF_DOCUMENT_KEYS = ['pdf.contents', 'pdf.fallback', 'pdf.page', 'pdf.noFont'] as const;

function pdfTexts(): string {
  const texts: Record<string, Record<string, string>> = {};
  for (const language of Object.keys(CATALOGUES)) {
    const t = messagesFor(language);
    texts[language] = Object.fromEntries(PDF_DOCUMENT_KEYS.map((k) => [k, t(k)]));
  }
  return `\n/** The PDF's own text by language (from the portal's message catalogues). */\nexport const PDF_TEXTS = ${JSON.stringify(texts)};\n`;
}

const SOURCES: Record<AssetId, Source> = {
  // The right-to-left rules follow the stylesheet's own, then the brand's colours.
  css: {
    stem: 'portal',
    ext: 'css',
    type: 'text/css; charset=utf-8',
    path: () => clientFile('portal.css'),
    build: (brand) => Buffer.concat([readFileSync(clientFile('portal.css')), Buffer.from('\n'), readFileSync(clientFile('portal-rtl.css')), Buffer.from(brandCss(brand))]),
  },
  script: { stem: 'portal', ext: 'js', type: 'text/javascript; charset=utf-8', path: () => clientFile('portal.js') },
  pdf: { stem: 'pdf', ext: 'js', type: 'text/javascript; charset=utf-8', path: () => clientFile('pdf.js') },
  pdfLayout: {
    stem: 'pdf-document',
    ext: 'js',
    type: 'text/javascript; charset=utf-8',
    path: () => clientFile('pdf-document.js'),
    build: () => Buffer.concat([readFileSync(clientFile('pdf-document.js')), Buffer.from(pdfTexts())]),
  },
  // pdfmake's browser build, vendored (vendor/pdfmake/README.md: the package brings 39 MB for these two files), and
  // markdown-it's ES module from node_modules: never a CDN.
  pdfmake: { stem: 'pdfmake', ext: 'js', type: 'text/javascript; charset=utf-8', path: () => vendorFile('pdfmake', 'pdfmake.min.js') },
  // The metrics of the PDF standard font Courier (code blocks): nothing to embed.
  courier: { stem: 'courier', ext: 'js', type: 'text/javascript; charset=utf-8', path: () => vendorFile('pdfmake', 'Courier.js') },
  markdownIt: { stem: 'markdown-it', ext: 'js', type: 'text/javascript; charset=utf-8', path: () => packageFile('markdown-it', 'dist/browser/markdown-it.esm.min.mjs') },
  icon: { stem: 'icon', ext: 'svg', type: 'image/svg+xml', path: () => clientFile('icon.svg') },
};

/** The source map comment would send browsers' developer tools after a file that is not served. */
const withoutSourceMap = (bytes: Buffer, type: string) =>
  type.startsWith('text/javascript') ? Buffer.from(bytes.toString('utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'), 'utf8') : bytes;

export class Assets {
  private readonly byId = new Map<AssetId, Asset>();
  private readonly byName = new Map<string, Asset>();

  /** `brand`: the accent's colours and the favicon file (HELP_PORTAL_ACCENT, HELP_PORTAL_FAVICON). */
  constructor(brand: Brand = { accent: null, favicon: null }) {
    for (const [id, given] of Object.entries(SOURCES) as Array<[AssetId, Source]>) {
      let source = given;
      if (id === 'icon' && brand.favicon !== null) {
        const ext = brand.favicon.slice(brand.favicon.lastIndexOf('.') + 1).toLowerCase();
        const file = brand.favicon;
        source = { stem: 'icon', ext, type: ICON_TYPES[ext] ?? 'application/octet-stream', path: () => file };
      }
      const body = withoutSourceMap(source.build ? source.build(brand) : readFileSync(source.path()), source.type);
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
      const asset = { name: `${source.stem}.${hash}.${source.ext}`, type: source.type, body };
      this.byId.set(id, asset);
      this.byName.set(asset.name, asset);
    }
  }

  /** The hashed file name of an asset. */
  name(id: AssetId): string {
    return this.byId.get(id)!.name;
  }

  /** The media type of an asset (the icon's follows the favicon file). */
  type(id: AssetId): string {
    return this.byId.get(id)!.type;
  }

  /** The asset a hashed name stands for (undefined: not one of ours, or of another release). */
  get(name: string): Asset | undefined {
    return this.byName.get(name);
  }
}
