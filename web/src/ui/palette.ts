import type { BrandColors, BrandPalette } from '../lib/contrast.js';

/** styles.css reads `--brand-<role>` (light) and `--brand-<role>-dark`, each with its default. */
const ROLES: readonly (readonly [keyof BrandColors, string])[] = [
  ['header', 'header'],
  ['headerText', 'header-text'],
  ['primary', 'primary'],
  ['primaryHover', 'primary-hover'],
];

/** The tenant's colours on `<html>`, or the defaults back (the customers' pages and the console). */
export function applyPalette(palette: BrandPalette | null): void {
  const { style } = document.documentElement;
  for (const theme of ['light', 'dark'] as const) {
    for (const [role, name] of ROLES) {
      const property = `--brand-${name}${theme === 'dark' ? '-dark' : ''}`;
      // CSSOM, not a style attribute: the pages' CSP (style-src 'self') allows it.
      if (palette) style.setProperty(property, palette[theme][role]);
      else style.removeProperty(property);
    }
  }
}
