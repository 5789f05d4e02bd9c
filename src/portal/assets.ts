import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../config.ts';

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

const SOURCES: Record<AssetId, { stem: string; ext: string; type: string; path: () => string }> = {
  css: { stem: 'portal', ext: 'css', type: 'text/css; charset=utf-8', path: () => clientFile('portal.css') },
  script: { stem: 'portal', ext: 'js', type: 'text/javascript; charset=utf-8', path: () => clientFile('portal.js') },
  pdf: { stem: 'pdf', ext: 'js', type: 'text/javascript; charset=utf-8', path: () => clientFile('pdf.js') },
  pdfLayout: { stem: 'pdf-document', ext: 'js', type: 'text/javascript; charset=utf-8', path: () => clientFile('pdf-document.js') },
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

  constructor() {
    for (const [id, source] of Object.entries(SOURCES) as Array<[AssetId, (typeof SOURCES)[AssetId]]>) {
      const body = withoutSourceMap(readFileSync(source.path()), source.type);
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

  /** The asset a hashed name stands for (undefined: not one of ours, or of another release). */
  get(name: string): Asset | undefined {
    return this.byName.get(name);
  }
}
