import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { voucherNumber } from '../../../src/platform/format.js';
import { codeLabel, voucherCode } from '../../../src/reports/invoice-codes.js';
import { formatDecimal } from '../../../src/reports/invoice-format.js';
import {
  decimalAsJsonNumber,
  digitsAsJsonNumber,
  qrJson,
  qrUrl,
  QR_URL_PREFIX,
} from '../../../src/reports/invoice-qr.js';

/* The RG 4892 QR's text and ARCA's voucher codes (src/reports/invoice-qr.ts, invoice-codes.ts). */

const FIELDS = {
  fecha: '2020-10-13',
  cuit: '30-00000000-7',
  ptoVta: 10,
  tipoCmp: 1,
  nroCmp: 94,
  importe: '12100.00',
  moneda: 'DOL',
  ctz: '65.000000',
  receptor: { tipoDocRec: 80, nroDocRec: '20000000001' },
  codAut: '70417054367476',
};

describe('the RG 4892 QR', () => {
  it('writes ARCA’s example object, numbers as JSON numbers, in the specification’s order', () => {
    expect(qrJson(FIELDS)).toBe(
      '{"ver":1,"fecha":"2020-10-13","cuit":30000000007,"ptoVta":10,"tipoCmp":1,"nroCmp":94,"importe":12100,"moneda":"DOL","ctz":65,"tipoDocRec":80,"nroDocRec":20000000001,"tipoCodAut":"E","codAut":70417054367476}',
    );
    const url = qrUrl(FIELDS);
    expect(url.startsWith(QR_URL_PREFIX)).toBe(true);
    expect(Buffer.from(url.slice(QR_URL_PREFIX.length), 'base64').toString()).toBe(qrJson(FIELDS));
  });

  it('leaves the receiver out when not identified', () => {
    expect(qrJson({ ...FIELDS, receptor: null })).not.toContain('DocRec');
  });

  it('writes a document number from its digits, past 2^53 too', () => {
    expect(digitsAsJsonNumber('12345678901234567890')).toBe('12345678901234567890');
    expect(digitsAsJsonNumber('20-30111222-3')).toBe('20301112223');
    expect(digitsAsJsonNumber('000')).toBe('0');
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n - 1n }), (value) => {
        expect(digitsAsJsonNumber(value.toString().padStart(20, '0'))).toBe(value.toString());
      }),
    );
  });

  it('writes a decimal exactly, without useless zeros', () => {
    expect(decimalAsJsonNumber('1320.50')).toBe('1320.5');
    expect(decimalAsJsonNumber('1.000000')).toBe('1');
    expect(decimalAsJsonNumber('0.05')).toBe('0.05');
    expect(decimalAsJsonNumber('0.00')).toBe('0');
    expect(decimalAsJsonNumber('-10.10')).toBe('-10.1');
    expect(() => decimalAsJsonNumber('1e5')).toThrow(RangeError);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (cents) => {
        const text = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
        expect(Number(decimalAsJsonNumber(text))).toBe(cents / 100);
      }),
    );
  });
});

describe('ARCA’s voucher codes', () => {
  it('names each code’s kind and letter, the MiPyME credit invoices as such', () => {
    expect(voucherCode(1)).toEqual({ kind: 'FAC', letter: 'A', name: 'FACTURA' });
    expect(voucherCode(8)).toEqual({ kind: 'NC', letter: 'B', name: 'NOTA DE CRÉDITO' });
    expect(voucherCode(12)).toMatchObject({ kind: 'ND', letter: 'C' });
    expect(voucherCode(201)).toEqual({
      kind: 'FAC',
      letter: 'A',
      name: 'FACTURA DE CRÉDITO ELECTRÓNICA MiPyME (FCE)',
    });
    expect(voucherCode(213)).toMatchObject({ kind: 'NC', letter: 'C' });
    expect(voucherCode(4)).toBeUndefined();
    expect(voucherCode(204)).toBeUndefined();
    expect(codeLabel(6)).toBe('Cod. 06');
    expect(codeLabel(201)).toBe('Cod. 201');
    expect(voucherNumber(3, 123)).toBe('00003-00000123');
  });

  it('prints figures the Argentine way', () => {
    expect(formatDecimal('1787.3300', 2, 4)).toBe('1.787,33');
    expect(formatDecimal('2.5000', 0, 4)).toBe('2,5');
    expect(formatDecimal('1050.500000', 2, 6)).toBe('1.050,50');
  });
});
