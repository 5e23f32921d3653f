import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AA_TEXT,
  brandPalette,
  contrastRatio,
  DARK_HEADER_TEXT,
  DARK_SURFACES,
  DARK_TEXT,
  darkenUntil,
  LIGHT_SURFACES,
  parseHexColor,
  relativeLuminance,
  toHex,
  type Rgb,
} from '../../../web/src/lib/contrast.js';

const rgb = (hex: string): Rgb => {
  const parsed = parseHexColor(hex);
  if (!parsed) throw new Error(`not a colour: ${hex}`);
  return parsed;
};
const ratio = (a: string, b: string) => contrastRatio(rgb(a), rgb(b));

describe('WCAG 2.1 relative luminance and contrast', () => {
  it('reads #rrggbb and #rgb, nothing else', () => {
    expect(parseHexColor('#1A7')).toEqual([0x11, 0xaa, 0x77]);
    expect(parseHexColor('#0b5cad')).toEqual([0x0b, 0x5c, 0xad]);
    for (const junk of ['', 'red', '#12345', '#gggggg', 'rgb(0,0,0)', null, undefined])
      expect(parseHexColor(junk)).toBeNull();
    expect(toHex([11, 92, 173])).toBe('#0b5cad');
  });

  it('gives the luminance and ratios of the WCAG definitions', () => {
    expect(relativeLuminance([0, 0, 0])).toBe(0);
    expect(relativeLuminance([255, 255, 255])).toBeCloseTo(1, 10);
    // The linear segment under 0.03928 and the power curve above it.
    expect(relativeLuminance([10, 10, 10])).toBeCloseTo(10 / 255 / 12.92, 10);
    expect(relativeLuminance([255, 0, 0])).toBeCloseTo(0.2126, 10);
    expect(ratio('#ffffff', '#000000')).toBeCloseTo(21, 10);
    expect(ratio('#000000', '#ffffff')).toBeCloseTo(21, 10);
    // The well-known edge of AA on white: #767676 passes, #777777 does not.
    expect(ratio('#767676', '#ffffff')).toBeGreaterThanOrEqual(AA_TEXT);
    expect(ratio('#777777', '#ffffff')).toBeLessThan(AA_TEXT);
    expect(ratio('#ffff00', '#ffffff')).toBeCloseTo(1.07, 2);
  });

  it('darkens in steps towards black, keeping the hue, until white text passes', () => {
    const darker = darkenUntil(rgb('#ffff00'), [255, 255, 255]);
    expect(contrastRatio(darker, [255, 255, 255])).toBeGreaterThanOrEqual(AA_TEXT);
    expect(darker[0]).toBe(darker[1]);
    expect(darker[2]).toBe(0);
    // The first step that passes: one step less would not.
    const lighter = Math.min(255, Math.round(darker[0] / 0.95));
    expect(contrastRatio([lighter, lighter, 0], [255, 255, 255])).toBeLessThan(AA_TEXT + 0.5);
    // A colour that passes already is left as it is.
    expect(darkenUntil(rgb('#0b5cad'), [255, 255, 255])).toEqual(rgb('#0b5cad'));
  });
});

describe('the brand palette', () => {
  it('keeps a dark brand colour as it is, with white text', () => {
    const palette = brandPalette('#0b5cad');
    expect(palette?.light).toEqual({
      header: '#0b5cad',
      headerText: '#ffffff',
      primary: '#0b5cad',
      primaryHover: toHex([9, 74, 138]),
    });
    expect(palette?.dark.header).toBe('#0b5cad');
    expect(palette?.dark.headerText).toBe(DARK_HEADER_TEXT);
  });

  it('gives a yellow header dark text, and darkens it where white text or links need it', () => {
    const palette = brandPalette('#ffff00');
    if (!palette) throw new Error('no palette');
    expect(palette.light.header).toBe('#ffff00');
    expect(palette.light.headerText).toBe(DARK_TEXT);
    // Links on white are an olive of the same hue, darkened just enough.
    expect(palette.light.primary).not.toBe('#ffff00');
    expect(ratio(palette.light.primary, '#ffffff')).toBeGreaterThanOrEqual(AA_TEXT);
    // The dark theme keeps its header dark: the yellow darkened under light text.
    expect(ratio(palette.dark.header, DARK_HEADER_TEXT)).toBeGreaterThanOrEqual(AA_TEXT);
    expect(palette.dark.header).not.toBe('#ffff00');
    // On the dark background yellow is a fine link colour as it is.
    expect(palette.dark.primary).toBe('#ffff00');
  });

  it('darkens a mid tone that passes with neither white nor dark text', () => {
    expect(ratio('#808080', '#ffffff')).toBeLessThan(AA_TEXT);
    expect(ratio('#808080', DARK_TEXT)).toBeLessThan(AA_TEXT);
    const palette = brandPalette('#808080');
    expect(palette?.light.headerText).toBe('#ffffff');
    expect(palette?.light.header).not.toBe('#808080');
    expect(ratio(palette?.light.header ?? '', '#ffffff')).toBeGreaterThanOrEqual(AA_TEXT);
  });

  it('lightens a dark brand colour for links in the dark theme', () => {
    const palette = brandPalette('#003366');
    expect(palette?.dark.primary).not.toBe('#003366');
    for (const surface of DARK_SURFACES)
      expect(ratio(palette?.dark.primary ?? '', surface)).toBeGreaterThanOrEqual(AA_TEXT);
  });

  it('is null without a usable colour: the default theme stays', () => {
    expect(brandPalette(null)).toBeNull();
    expect(brandPalette('azul')).toBeNull();
  });

  it('any colour: every text drawn on or in it reaches 4.5:1, in both themes', () => {
    const failing = (color: string): string[] => {
      const palette = brandPalette(color);
      if (!palette) return ['no palette'];
      const { light, dark } = palette;
      const pairs: [string, string][] = [
        [light.header, light.headerText],
        [dark.header, dark.headerText],
        ...LIGHT_SURFACES.flatMap((s): [string, string][] => [
          [light.primary, s],
          [light.primaryHover, s],
        ]),
        ...DARK_SURFACES.flatMap((s): [string, string][] => [
          [dark.primary, s],
          [dark.primaryHover, s],
        ]),
      ];
      return pairs.filter(([a, b]) => ratio(a, b) < AA_TEXT).map(([a, b]) => `${a} on ${b}`);
    };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffff }), (value) => {
        const color = `#${value.toString(16).padStart(6, '0')}`;
        expect(failing(color), color).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it("names the stylesheet's own colours for each theme", () => {
    const css = readFileSync(new URL('../../../web/src/styles.css', import.meta.url), 'utf8');
    const [light = '', dark = ''] = css.split('@media (prefers-color-scheme: dark)');
    const role = (block: string, name: string) =>
      new RegExp(`--${name}:\\s*(?:var\\(--[\\w-]+,\\s*)?(#[0-9a-f]{6})`, 'i')
        .exec(block)?.[1]
        ?.toLowerCase();
    const roles = ['bg', 'surface', 'info-bg', 'error-bg', 'success-bg', 'warning-bg'];
    expect(roles.map((name) => role(light, name))).toEqual(LIGHT_SURFACES);
    expect([...roles, 'on-primary'].map((name) => role(dark, name))).toEqual(DARK_SURFACES);
    expect(role(light, 'text')).toBe(DARK_TEXT);
    expect(role(dark, 'header-text')).toBe(DARK_HEADER_TEXT);
  });
});
