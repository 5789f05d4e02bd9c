/**
 * WCAG 2 contrast between colours, for the portal's accent setting: the accent must be readable as
 * link text on the light background, and the dark theme gets a lighter variant of the same hue that
 * is readable on the dark one.
 */

/** The portal's page backgrounds (portal.css `--bg`), light and dark. */
export const LIGHT_BACKGROUND = '#ffffff';
export const DARK_BACKGROUND = '#14171c';

/** WCAG AA for normal text. */
export const AA_RATIO = 4.5;

type Rgb = readonly [number, number, number];

/** `#rgb` or `#rrggbb` → channels 0–255; null for anything else. */
export function parseHex(text: string): Rgb | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(text.trim());
  if (m === null) return null;
  const h = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as unknown as Rgb;
}

export const toHex = (rgb: Rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** The contrast ratio of two colours, 1 to 21. */
export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The accent for the dark theme: the accent itself when it is readable on the dark background,
 * else the same colour mixed with more and more white until it is (white, at worst, always is).
 */
export function darkVariant(accent: Rgb): Rgb {
  const dark = parseHex(DARK_BACKGROUND)!;
  for (let step = 0; step <= 100; step += 2) {
    const mixed = accent.map((c) => c + ((255 - c) * step) / 100) as unknown as Rgb;
    const rounded = mixed.map(Math.round) as unknown as Rgb;
    if (contrast(rounded, dark) >= AA_RATIO) return rounded;
  }
  return [255, 255, 255];
}

/** The text colour on an accent-coloured button: white or near-black, whichever contrasts more. */
export function textOn(accent: Rgb): string {
  const white: Rgb = [255, 255, 255];
  const ink: Rgb = [16, 20, 26];
  return contrast(accent, white) >= contrast(accent, ink) ? '#ffffff' : '#10141a';
}
