/**
 * A business's brand colour (GET /portal/empresas/{id} `marca.color`, `#rrggbb`) made safe to
 * draw text on, in the light theme and in the dark one. WCAG 2.1's relative luminance and
 * contrast ratio; a colour whose text would fall under AA (4.5:1) is darkened (or lightened, as a
 * text colour on the dark theme's background) in small steps until it passes, or given dark text
 * when that keeps the business's own colour. Pure, tested in test/web/unit/contrast.test.ts.
 */

export type Rgb = readonly [number, number, number];

/** WCAG 2.1 AA for normal text (1.4.3). */
export const AA_TEXT = 4.5;

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
/** The light theme's text (styles.css --text): the dark text a light brand colour gets. */
export const DARK_TEXT = '#1a1a1a';
/** The dark theme's header text (styles.css --header-text, dark). */
export const DARK_HEADER_TEXT = '#f1f4f8';
/**
 * What the primary colour is drawn on or under as text, per theme (styles.css: --bg, --surface,
 * --info-bg, --error-bg, --success-bg, --warning-bg; in the dark theme also --on-primary, the
 * text on a primary fill). A link inside a notice sits on its tint, so each must pass.
 */
export const LIGHT_SURFACES = ['#ffffff', '#f4f6f8', '#e8f1fb', '#fdecec', '#e9f6ec', '#fff4d6'];
export const DARK_SURFACES = [
  '#121417',
  '#1d2126',
  '#15263b',
  '#3a1517',
  '#11291a',
  '#33290d',
  '#0c1420',
];

/** `#rrggbb` or `#rgb` (any case) as its channels; anything else is null. */
export function parseHexColor(value: string | null | undefined): Rgb | null {
  const match = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value?.trim() ?? '');
  if (!match?.[1]) return null;
  const hex = match[1].length === 3 ? [...match[1]].map((c) => c + c).join('') : match[1];
  return [0, 2, 4].map((at) => parseInt(hex.slice(at, at + 2), 16)) as unknown as Rgb;
}

export function toHex(rgb: Rgb): string {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG 2.1 relative luminance: each sRGB channel linearised, weighted 0.2126/0.7152/0.0722. */
export function relativeLuminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((channel) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** (L1 + 0.05) / (L2 + 0.05), the lighter over the darker: 1 to 21. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [high, low] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [
    number,
    number,
  ];
  return (high + 0.05) / (low + 0.05);
}

/** `rgb` moved a `share` (0..1) of the way towards `target`, channel by channel: hue kept. */
function towards(rgb: Rgb, target: Rgb, share: number): Rgb {
  return rgb.map((c, i) => Math.round(c + ((target[i] ?? c) - c) * share)) as unknown as Rgb;
}

/** How much each step moves a colour towards black or white. */
const STEP = 0.05;

/**
 * The colour itself when `passes` already holds, otherwise the first of 5 %, 10 %, ... of the
 * way towards `target` (black to darken, white to lighten) for which it does. Black passes
 * against white text (21:1) and white against a dark background, so the search always ends.
 */
export function adjustUntil(rgb: Rgb, target: Rgb, passes: (candidate: Rgb) => boolean): Rgb {
  for (let step = 0; step <= 1 / STEP; step += 1) {
    const candidate = towards(rgb, target, Math.min(1, step * STEP));
    if (passes(candidate)) return candidate;
  }
  return target;
}

/** Darkened until text of colour `text` on it reaches `ratio`. */
export function darkenUntil(rgb: Rgb, text: Rgb, ratio = AA_TEXT): Rgb {
  return adjustUntil(rgb, BLACK, (c) => contrastRatio(c, text) >= ratio);
}

/** The colours of one theme the brand sets (styles.css roles of the same names). */
export interface BrandColors {
  /** The header's fill, and the text and outlines drawn on it. */
  header: string;
  headerText: string;
  /** Links, buttons' fill and the text on it, chosen debts' borders. */
  primary: string;
  primaryHover: string;
}

export interface BrandPalette {
  light: BrandColors;
  dark: BrandColors;
}

function rgbOf(hex: string): Rgb {
  return parseHexColor(hex) ?? BLACK;
}

/** A colour passes as text on every one of `surfaces`. */
function passesOn(surfaces: readonly Rgb[]): (candidate: Rgb) => boolean {
  return (candidate) => surfaces.every((surface) => contrastRatio(candidate, surface) >= AA_TEXT);
}

/**
 * The brand colour as each theme draws it, every text at 4.5:1 or more:
 *
 * - Light header: the colour as it is with white text; if white fails, with dark text when that
 *   passes (a yellow stays yellow); otherwise (mid tones, where neither passes) darkened until
 *   white text passes.
 * - Dark header: darkened until the dark theme's light header text passes, so the header stays
 *   dark in the dark theme.
 * - Light primary (links on white and on the notices' tints, white text on buttons): darkened
 *   until it reaches 4.5:1 on every LIGHT_SURFACES colour; its hover a further 20 % darker.
 * - Dark primary (links on the dark background and tints, dark text on buttons): lightened until
 *   it reaches 4.5:1 on every DARK_SURFACES colour; its hover 30 % lighter.
 *
 * Null for no colour, or one that is not `#rrggbb` / `#rgb`: the default theme stays.
 */
export function brandPalette(color: string | null | undefined): BrandPalette | null {
  const brand = parseHexColor(color);
  if (!brand) return null;
  const darkText = rgbOf(DARK_TEXT);
  let lightHeader: Pick<BrandColors, 'header' | 'headerText'>;
  if (contrastRatio(brand, WHITE) >= AA_TEXT) {
    lightHeader = { header: toHex(brand), headerText: '#ffffff' };
  } else if (contrastRatio(brand, darkText) >= AA_TEXT) {
    lightHeader = { header: toHex(brand), headerText: DARK_TEXT };
  } else {
    lightHeader = { header: toHex(darkenUntil(brand, WHITE)), headerText: '#ffffff' };
  }
  const lightPrimary = adjustUntil(brand, BLACK, passesOn(LIGHT_SURFACES.map(rgbOf)));
  const darkPrimary = adjustUntil(brand, WHITE, passesOn(DARK_SURFACES.map(rgbOf)));
  return {
    light: {
      ...lightHeader,
      primary: toHex(lightPrimary),
      primaryHover: toHex(towards(lightPrimary, BLACK, 0.2)),
    },
    dark: {
      header: toHex(darkenUntil(brand, rgbOf(DARK_HEADER_TEXT))),
      headerText: DARK_HEADER_TEXT,
      primary: toHex(darkPrimary),
      primaryHover: toHex(towards(darkPrimary, WHITE, 0.3)),
    },
  };
}
