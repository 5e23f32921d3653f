import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  documentFileName,
  documentFullName,
  documentName,
  restPhrase,
  voucherNumber,
  withFullStop,
} from '../../../contract/names.js';
import { sucursalLabel } from '../../../src/platform/format.js';

/*
 * How a document is named (contract/names.ts, docs/web.md "How a document is named"): one name
 * for every page, PDF file name and e-mail, whatever the ERP wrote.
 */

const B1301 = { tipo: 'FAC', comprobante: 'Factura B', nrocomp: '0001-00001301' };

describe('documentName', () => {
  it('writes the kind in words, the letter and a 4-digit punto de venta with an 8-digit number', () => {
    expect(documentFullName(B1301)).toBe('Factura B 0001-00001301');
    expect(documentName(B1301)).toEqual({ titulo: 'Factura B', numero: '0001-00001301' });
  });

  it('gives each kind one capitalisation, whatever the ledger wrote', () => {
    expect(
      documentFullName({ tipo: 'ND', comprobante: 'Nota de Débito B', nrocomp: '0001-00000077' }),
    ).toBe('Nota de débito B 0001-00000077');
    expect(
      documentFullName({ tipo: 'NC', comprobante: 'NOTA DE CREDITO  A', nrocomp: '1-31' }),
    ).toBe('Nota de crédito A 0001-00000031');
    // Without the ledger's kind (a payment or a coupon kept the words only): from the words.
    expect(documentFullName({ comprobante: 'nota de débito b', nrocomp: '0001-00000077' })).toBe(
      'Nota de débito B 0001-00000077',
    );
  });

  it('takes ARCA’s letter and number from the fiscal row, in 4 digits, not its 5', () => {
    const fiscal = { tipo_cbte: 6, letra: 'B', punto_venta: 1, numero: 1301 };
    expect(
      documentFullName({ tipo: 'FAC', comprobante: 'Factura', nrocomp: '00001-00001301', fiscal }),
    ).toBe('Factura B 0001-00001301');
    // A ledger number other than ARCA's: ARCA's, the document's legal number, wins.
    expect(
      documentFullName({
        ...B1301,
        fiscal: { tipo_cbte: 1, letra: 'A', punto_venta: 3, numero: 123 },
      }),
    ).toBe('Factura A 0003-00000123');
    // A punto de venta past 9999 keeps its five digits.
    expect(voucherNumber(12345, 7)).toBe('12345-00000007');
  });

  it('reads the ledger’s number in any padding, and a letter written before it', () => {
    expect(documentName({ ...B1301, nrocomp: '00003-00000123' }).numero).toBe('0003-00000123');
    expect(documentName({ ...B1301, nrocomp: ' 3 - 123 ' }).numero).toBe('0003-00000123');
    expect(
      documentFullName({ tipo: 'FAC', comprobante: 'Factura', nrocomp: 'B-0001-00001301' }),
    ).toBe('Factura B 0001-00001301');
  });

  it('keeps a receipt’s number and words it does not know as the ERP wrote them', () => {
    expect(
      documentFullName({ tipo: 'REC', comprobante: 'Recibo', nrocomp: 'RC0001-00000041' }),
    ).toBe('Recibo RC0001-00000041');
    expect(
      documentFullName({ tipo: 'AJU', comprobante: ' Ajuste  interno ', nrocomp: 'X-9' }),
    ).toBe('Ajuste interno X-9');
  });

  it('names ARCA’s MiPyME credit invoices as such', () => {
    expect(
      documentFullName({
        tipo: 'FAC',
        comprobante: 'Factura A',
        nrocomp: '0002-00000010',
        fiscal: { tipo_cbte: 201, letra: 'A', punto_venta: 2, numero: 10 },
      }),
    ).toBe('Factura de crédito electrónica MiPyME A 0002-00000010');
  });

  it('gives back a name it wrote unchanged (a payment keeps it; read again, the same)', () => {
    const kinds = fc.constantFrom('FAC', 'ND', 'NC', 'REC', undefined);
    const words = fc.constantFrom(
      'Factura B',
      'Nota de Débito A',
      'nota de credito c',
      'Recibo',
      'Factura de Crédito Electrónica MiPyME (FCE) A',
      'Ajuste',
    );
    const numbers = fc.oneof(
      fc
        .tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 99_999_999 }))
        .map(([p, n]) => `${p}-${n}`),
      fc.constantFrom('RC0001-00000041', 'B-0001-00001301', 'S/N'),
    );
    fc.assert(
      fc.property(kinds, words, numbers, (tipo, comprobante, nrocomp) => {
        const once = documentName({ tipo, comprobante, nrocomp });
        const twice = documentName({ tipo, comprobante: once.titulo, nrocomp: once.numero });
        expect(twice).toEqual(once);
      }),
    );
  });
});

describe('documentFileName', () => {
  it('is the name in lower case, without accents, joined by hyphens', () => {
    expect(documentFileName(B1301)).toBe('factura-b-0001-00001301.pdf');
    expect(documentFileName({ titulo: 'Nota de débito B', numero: '0001-00000077' })).toBe(
      'nota-de-debito-b-0001-00000077.pdf',
    );
    expect(
      documentFileName({ tipo: 'REC', comprobante: 'Recibo', nrocomp: 'RC0001-00000041' }),
    ).toBe('recibo-rc0001-00000041.pdf');
    // Whatever the ERP wrote: only what a header parameter and a disk hold safely.
    expect(documentFileName({ comprobante: 'Ajuste "raro"', nrocomp: '../1;2' })).toBe(
      'ajuste-raro-1-2.pdf',
    );
    expect(documentFileName({ comprobante: '', nrocomp: '' })).toBe('comprobante.pdf');
  });
});

describe('the words around a name', () => {
  it('ends a sentence with one full stop after a name that ends in one', () => {
    expect(withFullStop('en el portal de clientes de Distribuidora Demo S.A.')).toBe(
      'en el portal de clientes de Distribuidora Demo S.A.',
    );
    expect(withFullStop('en el portal de clientes de Ferretería Norte')).toBe(
      'en el portal de clientes de Ferretería Norte.',
    );
  });

  it('says what is left of what', () => {
    expect(restPhrase('$ 20.000,00', '$ 38.500,00')).toBe('Resta $ 20.000,00 de $ 38.500,00');
    expect(restPhrase('$ 20.000,00')).toBe('Resta $ 20.000,00');
  });

  it('names a sucursal once: "Sucursal Norte", never "Sucursal Sucursal Norte"', () => {
    expect(sucursalLabel('Sucursal Norte')).toBe('Sucursal Norte');
    expect(sucursalLabel('SUCURSAL 2')).toBe('SUCURSAL 2');
    expect(sucursalLabel('Casa Central')).toBe('Sucursal Casa Central');
    expect(sucursalLabel('Sucursales Unidas')).toBe('Sucursal Sucursales Unidas');
  });
});
