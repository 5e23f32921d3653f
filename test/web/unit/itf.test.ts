import { describe, expect, it } from 'vitest';
import { decodeItf } from '../../helpers/itf.js';
import { couponSymbolDigits, itfBars, itfElements, QUIET, WIDE } from '../../../web/src/lib/itf.js';

/** The bars as a scanner's row of pixels: `scale` pixels a module, 20 rows, white around. */
function raster(digits: string, scale = 2) {
  const { bars, width } = itfBars(digits);
  const row = new Uint8Array(width * scale).fill(255);
  for (const bar of bars) row.fill(0, bar.x * scale, (bar.x + bar.width) * scale);
  const height = 20;
  const gray = new Uint8Array(row.length * height);
  for (let y = 0; y < height; y += 1) gray.set(row, y * row.length);
  return { width: row.length, height, gray };
}

describe('ITF (interleaved 2 of 5)', () => {
  it('encodes a pair as the standard does: the first digit in the bars, the second in the spaces', () => {
    // 1 = WNNNW (bars), 2 = NWNNW (spaces), interleaved; start NNNN, stop WNN.
    expect(itfElements('12')).toBe('NNNN' + 'WNNWNNNNWW' + 'WNN');
    expect(itfElements('00')).toBe('NNNN' + 'NNNNWWWWNN' + 'WNN');
  });

  it('draws bars a decoder reads back, with quiet zones and wide = 3 narrow', () => {
    const code = '0001000010010000013';
    const symbol = couponSymbolDigits(code);
    expect(symbol).toBe(`0${code}`);
    expect(decodeItf(raster(symbol))).toBe(symbol);
    expect(decodeItf(raster('1234567890', 3))).toBe('1234567890');
    const { bars, width } = itfBars(symbol);
    expect(bars[0]?.x).toBe(QUIET);
    expect(new Set(bars.map((bar) => bar.width))).toEqual(new Set([1, WIDE]));
    // 4 start + 18 modules a pair + 5 stop, and the quiet zones.
    expect(width).toBe(QUIET + 4 + 10 * 18 + 5 + QUIET);
  });

  it('refuses what ITF cannot carry', () => {
    expect(() => itfElements('123')).toThrow(RangeError);
    expect(() => itfElements('')).toThrow(RangeError);
    expect(() => itfElements('12a4')).toThrow(RangeError);
  });
});
