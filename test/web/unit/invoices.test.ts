import { describe, expect, it } from 'vitest';
import {
  documentState,
  documentTitle,
  invoicePdfName,
  invoicesQuery,
  isFiscalDocument,
} from '../../../web/src/lib/invoices.js';
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

  it('names the file as the API does when ARCA’s number is known, else from the ledger’s', () => {
    expect(invoicePdfName({ nrocomp: 'x', punto_venta: 3, numero: 123 })).toBe(
      'factura-00003-00000123.pdf',
    );
    expect(invoicePdfName({ nrocomp: '0001-00000077' })).toBe('factura-0001-00000077.pdf');
    expect(invoicePdfName({ nrocomp: 'A 1/2' })).toBe('factura-A_1_2.pdf');
  });

  it('says what each document is and where it stands', () => {
    expect(documentTitle({ tipo: 'ND', comprobante: 'ND', letra: 'B' })).toBe('Nota de débito B');
    expect(documentTitle({ tipo: 'FAC', comprobante: 'Factura B', letra: null })).toBe('Factura B');
    expect(documentState({ tipo: 'NC', saldo: 0 }).label).toBe('A tu favor');
    expect(documentState({ tipo: 'FAC', saldo: 10 }).label).toBe('Pendiente de pago');
    expect(documentState({ tipo: 'FAC', saldo: 0 }).label).toBe('Pagado');
    expect(['FAC', 'ND', 'NC', 'REC'].map(isFiscalDocument)).toEqual([true, true, true, false]);
  });
});
