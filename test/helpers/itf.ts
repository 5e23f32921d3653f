import { inflateSync } from 'node:zlib';

/*
 * What a scanner does with a coupon's barcode, done by hand: read the PNG's pixels, take one row
 * across the bars, measure the runs and decode Interleaved 2 of 5. A test that passes here means
 * the symbol in the PDF carries exactly those digits.
 */

interface GrayImage {
  width: number;
  height: number;
  /** 0 (black) to 255 (white), row by row. */
  gray: Uint8Array;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** 8-bit grey, grey+alpha, RGB and RGBA PNGs, non-interlaced: what encoders of barcodes write. */
export function decodePng(png: Uint8Array): GrayImage {
  const buffer = Buffer.from(png);
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (offset < buffer.length) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('latin1', offset + 4, offset + 8);
    const chunk = buffer.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = chunk.readUInt32BE(0);
      height = chunk.readUInt32BE(4);
      const depth = chunk[8] ?? 0;
      channels = CHANNELS[chunk[9] ?? -1] ?? 0;
      if (depth !== 8 || channels === 0 || chunk[12] !== 0) {
        throw new Error(`unsupported PNG: depth ${depth}, colour type ${chunk[9]}`);
      }
    }
    if (type === 'IDAT') data.push(chunk);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)] ?? 0;
    for (let x = 0; x < stride; x += 1) {
      const value = raw[y * (stride + 1) + 1 + x] ?? 0;
      const left = x >= channels ? (pixels[y * stride + x - channels] ?? 0) : 0;
      const up = y > 0 ? (pixels[(y - 1) * stride + x] ?? 0) : 0;
      const upLeft = y > 0 && x >= channels ? (pixels[(y - 1) * stride + x - channels] ?? 0) : 0;
      const predictor = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][filter] ?? 0;
      pixels[y * stride + x] = (value + predictor) & 0xff;
    }
  }
  const gray = new Uint8Array(width * height);
  for (let i = 0; i < width * height; i += 1) {
    const base = i * channels;
    const alpha = channels === 2 || channels === 4 ? (pixels[base + channels - 1] ?? 255) : 255;
    const luminance =
      channels >= 3
        ? ((pixels[base] ?? 0) + (pixels[base + 1] ?? 0) + (pixels[base + 2] ?? 0)) / 3
        : (pixels[base] ?? 0);
    // Transparent counts as the white paper under it.
    gray[i] = Math.round((luminance * alpha + 255 * (255 - alpha)) / 255);
  }
  return { width, height, gray };
}

const DIGITS: Record<string, string> = {
  NNWWN: '0',
  WNNNW: '1',
  NWNNW: '2',
  WWNNN: '3',
  NNWNW: '4',
  WNWNN: '5',
  NWWNN: '6',
  NNNWW: '7',
  WNNWN: '8',
  NWNWN: '9',
};

/** Decodes the ITF symbol crossing the middle row of the image; throws if it is not one. */
export function decodeItf(image: GrayImage): string {
  const row = Math.floor(image.height / 2);
  const runs: number[] = [];
  let dark = false;
  let run = 0;
  let started = false;
  for (let x = 0; x < image.width; x += 1) {
    const isDark = (image.gray[row * image.width + x] ?? 255) < 128;
    if (!started) {
      if (!isDark) continue;
      started = true;
      dark = true;
    }
    if (isDark === dark) run += 1;
    else {
      runs.push(run);
      dark = isDark;
      run = 1;
    }
  }
  if (dark) runs.push(run); // the last bar; trailing quiet zone dropped
  if (runs.length < 7) throw new Error('no bars found');
  const threshold = (Math.min(...runs) + Math.max(...runs)) / 2;
  const wide = runs.map((width) => (width > threshold ? 'W' : 'N'));
  if (wide.slice(0, 4).join('') !== 'NNNN') throw new Error('no ITF start pattern');
  if (wide.slice(-3).join('') !== 'WNN') throw new Error('no ITF stop pattern');
  const body = wide.slice(4, -3);
  if (body.length % 10 !== 0) throw new Error(`ITF body of ${body.length} elements`);
  let digits = '';
  for (let i = 0; i < body.length; i += 10) {
    const pair = body.slice(i, i + 10);
    const bars = pair.filter((_, index) => index % 2 === 0).join('');
    const spaces = pair.filter((_, index) => index % 2 === 1).join('');
    const first = DIGITS[bars];
    const second = DIGITS[spaces];
    if (first === undefined || second === undefined) throw new Error('not an ITF digit');
    digits += first + second;
  }
  return digits;
}
