import QRCode from 'qrcode';

/**
 * The QR of RG 4892/2020 (ARCA's "Especificaciones técnicas del código QR"): the address
 * `https://www.afip.gob.ar/fe/qr/?p=` followed by the Base64 of a JSON object in ARCA's field
 * order, numbers as JSON numbers.
 */
export const QR_URL_PREFIX = 'https://www.afip.gob.ar/fe/qr/?p=';

/** What the QR carries, as the database holds it: decimals and document numbers as text. */
export interface QrFields {
  /** `YYYY-MM-DD`. */
  fecha: string;
  /** The issuer's CUIT, 11 digits (dashes ignored). */
  cuit: string;
  ptoVta: number;
  tipoCmp: number;
  nroCmp: number;
  /** The authorized total, numeric text ("12100.00"). */
  importe: string;
  moneda: string;
  /** The authorized exchange rate, numeric text ("1.000000"). */
  ctz: string;
  /** The receiver's document; null when not identified (doc_tipo 99). */
  receptor: { tipoDocRec: number; nroDocRec: string } | null;
  /** The CAE, 14 digits. */
  codAut: string;
}

/**
 * A document number's digits as a JSON number: written from the text, never through a double,
 * so a 20-digit number past 2^53 keeps every digit. Leading zeros go (JSON forbids them); no
 * digits at all is 0.
 */
export function digitsAsJsonNumber(text: string): string {
  const digits = text.replace(/\D/g, '').replace(/^0+/, '');
  return digits === '' ? '0' : digits;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * A PostgreSQL numeric's text as a JSON number, exactly: "12100.00" -> 12100, "65.500000" ->
 * 65.5. Text that is not a plain decimal throws (it would make the QR's JSON invalid).
 */
export function decimalAsJsonNumber(text: string): string {
  const match = DECIMAL.exec(text.trim());
  if (!match) throw new RangeError(`not a decimal: ${text}`);
  const [, sign = '', units = '0', fraction = ''] = match;
  const whole = units.replace(/^0+(?=\d)/, '');
  const decimals = fraction.replace(/0+$/, '');
  const value = decimals === '' ? whole : `${whole}.${decimals}`;
  return value === '0' ? '0' : `${sign}${value}`;
}

/** The JSON text of RG 4892, built by hand so that every number is written from its digits. */
export function qrJson(fields: QrFields): string {
  const parts: [name: string, json: string][] = [
    ['ver', '1'],
    ['fecha', JSON.stringify(fields.fecha)],
    ['cuit', digitsAsJsonNumber(fields.cuit)],
    ['ptoVta', String(fields.ptoVta)],
    ['tipoCmp', String(fields.tipoCmp)],
    ['nroCmp', String(fields.nroCmp)],
    ['importe', decimalAsJsonNumber(fields.importe)],
    ['moneda', JSON.stringify(fields.moneda)],
    ['ctz', decimalAsJsonNumber(fields.ctz)],
  ];
  if (fields.receptor) {
    parts.push(['tipoDocRec', String(fields.receptor.tipoDocRec)]);
    parts.push(['nroDocRec', digitsAsJsonNumber(fields.receptor.nroDocRec)]);
  }
  parts.push(['tipoCodAut', '"E"'], ['codAut', digitsAsJsonNumber(fields.codAut)]);
  return `{${parts.map(([name, json]) => `"${name}":${json}`).join(',')}}`;
}

/** The address the QR encodes. */
export function qrUrl(fields: QrFields): string {
  return `${QR_URL_PREFIX}${Buffer.from(qrJson(fields), 'utf8').toString('base64')}`;
}

/** Modules of light margin around the symbol: ISO/IEC 18004's quiet zone. */
const QUIET_ZONE = 4;

/**
 * Draws the QR of `text` as vectors, `size` points square (quiet zone included) with its top
 * left corner at (x, y): dark modules as filled rectangles, each row's runs of dark modules
 * merged into one, so no rasteriser leaves hairlines between neighbours. Crisp at any
 * resolution, which is what a phone's reader or zbarimg at 300 dpi needs.
 */
export function drawQr(
  doc: PDFKit.PDFDocument,
  text: string,
  x: number,
  y: number,
  size: number,
): void {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const count = modules.size;
  const module = size / (count + 2 * QUIET_ZONE);
  const origin = { x: x + QUIET_ZONE * module, y: y + QUIET_ZONE * module };
  doc.save();
  doc.rect(x, y, size, size).fillColor('white').fill();
  for (let row = 0; row < count; row += 1) {
    let column = 0;
    while (column < count) {
      if (!modules.get(row, column)) {
        column += 1;
        continue;
      }
      const start = column;
      while (column < count && modules.get(row, column)) column += 1;
      doc.rect(
        origin.x + start * module,
        origin.y + row * module,
        (column - start) * module,
        module,
      );
    }
  }
  doc.fillColor('black').fill();
  doc.restore();
}
