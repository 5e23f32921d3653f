import { describe, expect, it } from 'vitest';
import {
  documentPdfName,
  documentState,
  invoicesQuery,
  PDF_MISSING_WORDS,
  receiptPdfName,
  restOf,
} from '../../../web/src/lib/invoices.js';
import { PDF_MISSING } from '../../../contract/invoices.js';
import { routes } from '../../../contract/routes.js';
import { routeUrl } from '../../../web/src/api/route-call.js';

/* The web client's invoice helpers (web/src/lib/invoices.ts). */

describe('invoices in the web client', () => {
  it('asks for a period’s page and a document’s PDF', () => {
    const query = invoicesQuery({ desde: '2026-01-01', hasta: '2026-11-30' }, 40);
    expect(routeUrl(routes.listInvoices.path, { query })).toBe(
      '/portal/facturas?desde=2026-01-01&hasta=2026-11-30&limit=20&offset=40',
    );
    expect(routeUrl(routes.getInvoicePdf.path, { params: { id: 'a/b' } })).toBe(
      '/portal/facturas/a%2Fb/pdf',
    );
  });

  it('saves each PDF under the name the API gives it, from the document’s name', () => {
    expect(documentPdfName({ comprobante: 'Factura B', nrocomp: '0001-00001301' })).toBe(
      'factura-b-0001-00001301.pdf',
    );
    expect(documentPdfName({ comprobante: 'Nota de débito B', nrocomp: '0001-00000077' })).toBe(
      'nota-de-debito-b-0001-00000077.pdf',
    );
    expect(documentPdfName({ comprobante: 'Recibo', nrocomp: 'RC0001-00000042' })).toBe(
      'recibo-rc0001-00000042.pdf',
    );
    expect(receiptPdfName('RC0001-00000042', 7)).toBe('recibo-rc0001-00000042.pdf');
    expect(receiptPdfName(null, 7)).toBe('recibo-7.pdf');
  });

  it('gives each state one word: Pendiente, Vencida, Pagada, A tu favor', () => {
    expect(documentState({ tipo: 'NC', saldo: 0, vencido: false }).label).toBe('A tu favor');
    expect(documentState({ tipo: 'FAC', saldo: 10, vencido: false }).label).toBe('Pendiente');
    expect(documentState({ tipo: 'FAC', saldo: 10, vencido: true })).toEqual({
      label: 'Vencida',
      tone: 'bad',
    });
    expect(documentState({ tipo: 'ND', saldo: 0, vencido: false }).label).toBe('Pagada');
  });

  it('says what is left of a debt paid in part, and nothing of one owed whole', () => {
    expect(restOf(20000, 38500)).toBe('Resta $ 20.000,00 de $ 38.500,00');
    expect(restOf(38500, 38500)).toBeNull();
  });

  it('has words for every reason the API gives a document no PDF', () => {
    for (const reason of PDF_MISSING) expect(PDF_MISSING_WORDS[reason]).toMatch(/\.$/);
    expect(PDF_MISSING_WORDS.sin_cae).toContain('CAE');
    expect(PDF_MISSING_WORDS.sin_registro_fiscal).not.toContain('CAE');
  });
});
