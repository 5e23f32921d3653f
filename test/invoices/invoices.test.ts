import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { insertIssuer, TWO_RATE_BODY } from '../../src/dev/fiscal-fixture.js';
import {
  addAuthTenant,
  bearer,
  fakeClock,
  login,
  register,
  twoCustomers,
} from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { insertFiscalRow, insertLedgerRow, ISSUER } from '../helpers/invoices.js';
import { capturedLogs } from '../helpers/logs.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  type ReportsService,
} from '../helpers/reports.js';
import { requireQrTools } from '../helpers/requirements.js';

/*
 * GET /portal/facturas and GET /portal/facturas/{id}/pdf (docs/api.md "Invoices"): the ERP's
 * fiscal rows (cbtefis, cbtefisdet, cbtefisiva, empfiscal) inserted as the ERP writes them, the
 * real app and the real reports service; the PDF's text read back with pdf-parse and its QR with
 * zbarimg from the page rendered at 300 dpi.
 */

const SECRET = TEST_REPORTS_SECRET;
/** 21 November 2026, noon in Buenos Aires: the default period is 2025-11-21 to 2026-11-21. */
const clock = fakeClock(new Date('2026-11-21T15:00:00Z'));

const env = useTestEnvironment();
const qr = requireQrTools();
const logs = capturedLogs('info');
let reports: ReportsService;
let tenant: TestTenant;
let other: TestTenant;
let app: FastifyInstance;
let ana: string;
let textil: string;
let anaOfTenant2: string;

const ids = {
  facturaA: '',
  facturaB: '',
  notaCredito: '',
  notaDebitoDolares: '',
  pendiente: '',
  sinFiscal: '',
  anulada: '',
  antigua: '',
  recibo: '',
  deTextil: '',
  deOtraEmpresa: '',
};

const AUTHORIZED = { cae: '76123456789012', cae_vto: '2026-10-23' } as const;

/** A one-line authorized Factura A of `total` (IVA 21%), for rows whose content is not looked at. */
function plainFacturaA(numero: number, fecha: string) {
  return {
    tipo_cbte: 1,
    letra: 'A',
    punto_venta: 3,
    numero,
    fecha,
    ...AUTHORIZED,
    doc_tipo: 80,
    doc_nro: '27301112223',
    receptor_nombre: 'Ana Gómez',
    receptor_domicilio: 'Mitre 55, Rosario',
    receptor_cond_iva: 'IVA Responsable Inscripto',
    neto: '100.00',
    iva: '21.00',
    total: '121.00',
    lineas: [
      {
        descripcion: 'Servicio',
        cantidad: '1',
        precio_unitario: '100',
        alicuota_iva: '21',
        importe: '100.00',
      },
    ],
    alicuotas: [{ alicuota: '21', base: '100.00', importe: '21.00' }],
  };
}

beforeAll(async () => {
  reports = await sharedReportsService();
  tenant = await addAuthTenant(env, 1);
  other = await addAuthTenant(env, 2);
  await insertIssuer((text, values) => tenant.query(text, values), ISSUER);
  app = await appWithFreshCounters();
  ({ ana, textil } = await twoCustomers(app));
  await register(app, { tenant_id: 2, email: 'ana2@example.com' });
  anaOfTenant2 = (await login(app, { tenant_id: 2 })).accessToken;

  // A Factura A with two IVA rates, unpaid.
  ids.facturaA = await insertFiscalRow(
    tenant,
    {
      cnro: 1,
      tipo: 'FAC',
      comprobante: 'Factura A',
      nrocomp: '00003-00000123',
      fecha: '2026-10-13',
      vencimiento: '2026-11-12',
      debe: '1320.50',
      saldo: '1320.50',
    },
    {
      ...plainFacturaA(123, '2026-10-13'),
      ...TWO_RATE_BODY,
    },
  );
  // A Factura B to a consumidor final (no document), paid by the receipt below.
  ids.facturaB = await insertFiscalRow(
    tenant,
    {
      cnro: 1,
      tipo: 'FAC',
      comprobante: 'Factura B',
      nrocomp: '00003-00000200',
      fecha: '2026-11-01',
      vencimiento: '2026-12-01',
    },
    {
      tipo_cbte: 6,
      letra: 'B',
      punto_venta: 3,
      numero: 200,
      fecha: '2026-11-01',
      cae: '71234567890123',
      cae_vto: '2026-11-11',
      doc_tipo: 99,
      doc_nro: '0',
      receptor_nombre: 'Consumidor Final',
      receptor_domicilio: null,
      receptor_cond_iva: 'Consumidor Final',
      neto: '10000.00',
      iva: '2100.00',
      total: '12100.00',
      lineas: [
        {
          descripcion: 'Taladro percutor 750 W',
          cantidad: '2',
          precio_unitario: '6050',
          alicuota_iva: '21',
          importe: '12100.00',
        },
      ],
      alicuotas: [{ alicuota: '21', base: '10000.00', importe: '2100.00' }],
    },
  );
  // A credit note adjusting the Factura A.
  ids.notaCredito = await insertFiscalRow(
    tenant,
    {
      cnro: 1,
      tipo: 'NC',
      comprobante: 'Nota de Crédito A',
      nrocomp: '00003-00000007',
      fecha: '2026-11-05',
      haber: '121.00',
    },
    {
      ...plainFacturaA(7, '2026-11-05'),
      tipo_cbte: 3,
      asociado_ordcta_id: ids.facturaA,
      lineas: [
        {
          descripcion: 'Devolución de tornillos',
          cantidad: '1',
          precio_unitario: '100',
          alicuota_iva: '21',
          importe: '100.00',
        },
      ],
    },
  );
  // A debit note in dollars to a receiver whose document number is past 2^53.
  ids.notaDebitoDolares = await insertFiscalRow(
    tenant,
    {
      cnro: 1,
      tipo: 'ND',
      comprobante: 'Nota de Débito B',
      nrocomp: '00004-00000011',
      fecha: '2026-10-20',
      debe: '105050.00',
      saldo: '105050.00',
    },
    {
      tipo_cbte: 7,
      letra: 'B',
      punto_venta: 4,
      numero: 11,
      fecha: '2026-10-20',
      cae: '75000000000001',
      cae_vto: '2026-10-30',
      doc_tipo: 96,
      doc_nro: '12345678901234567890',
      receptor_nombre: 'Ana Gómez',
      receptor_domicilio: 'Mitre 55, Rosario',
      receptor_cond_iva: 'Responsable Monotributo',
      moneda: 'DOL',
      cotizacion: '1050.5',
      neto: '82.64',
      iva: '17.36',
      total: '100.00',
      lineas: [
        {
          descripcion: 'Diferencia de cambio',
          cantidad: '1',
          precio_unitario: '100',
          alicuota_iva: '21',
          importe: '100.00',
        },
      ],
      alicuotas: [{ alicuota: '21', base: '82.64', importe: '17.36' }],
    },
  );
  // Waiting for its CAE.
  ids.pendiente = await insertFiscalRow(
    tenant,
    {
      cnro: 1,
      tipo: 'FAC',
      comprobante: 'Factura B',
      nrocomp: '00003-00000210',
      fecha: '2026-11-10',
      debe: '500.00',
      saldo: '500.00',
    },
    {
      ...plainFacturaA(210, '2026-11-10'),
      tipo_cbte: 6,
      letra: 'B',
      cae: null,
      cae_vto: null,
    },
  );
  // From before the fiscal tables: partly paid (300 of 500), no cbtefis row.
  ids.sinFiscal = await insertLedgerRow(tenant, {
    cnro: 1,
    tipo: 'FAC',
    comprobante: 'Factura B',
    nrocomp: '0001-00000099',
    fecha: '2026-09-01',
    debe: '200.00',
    saldo: '200.00',
  });
  ids.anulada = await insertFiscalRow(
    tenant,
    {
      cnro: 1,
      tipo: 'FAC',
      comprobante: 'Factura A',
      nrocomp: '00003-00000150',
      fecha: '2026-10-30',
      anulado: true,
    },
    plainFacturaA(150, '2026-10-30'),
  );
  ids.antigua = await insertFiscalRow(
    tenant,
    {
      cnro: 1,
      tipo: 'FAC',
      comprobante: 'Factura A',
      nrocomp: '00003-00000050',
      fecha: '2025-06-01',
    },
    plainFacturaA(50, '2025-06-01'),
  );
  ids.recibo = await insertLedgerRow(tenant, {
    cnro: 1,
    tipo: 'REC',
    comprobante: 'Recibo',
    nrocomp: 'X0001-00000001',
    fecha: '2026-11-02',
    haber: '12400.00',
  });
  await tenant.query(
    `INSERT INTO suc0001.recfac (recibo_id, factura_id, monto) VALUES ($1, $2, 12100), ($1, $3, 300)`,
    [ids.recibo, ids.facturaB, ids.sinFiscal],
  );
  ids.deTextil = await insertFiscalRow(
    tenant,
    {
      cnro: 2,
      tipo: 'FAC',
      comprobante: 'Factura A',
      nrocomp: '00003-00000300',
      fecha: '2026-11-03',
      debe: '121.00',
      saldo: '121.00',
    },
    plainFacturaA(300, '2026-11-03'),
  );
  // Tenant 2 has no issuer (public.empfiscal is empty).
  ids.deOtraEmpresa = await insertFiscalRow(
    other,
    {
      cnro: 1,
      tipo: 'FAC',
      comprobante: 'Factura A',
      nrocomp: '00001-00000001',
      fecha: '2026-11-15',
      debe: '121.00',
      saldo: '121.00',
    },
    { ...plainFacturaA(1, '2026-11-15'), punto_venta: 1 },
  );
});

afterAll(async () => {
  await reports.stop();
});

/**
 * The app against this file's databases and reports service, with counters of its own: the PDF
 * tests ask for more documents than the fair-use limit allows a customer in a minute.
 */
function appWithFreshCounters() {
  return env.app(
    { REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url },
    { clock, logger: logs.logger },
  );
}

interface InvoiceItem {
  id: string;
  tipo: string;
  comprobante: string;
  nrocomp: string;
  fecha: string;
  vencimiento: string | null;
  importe: number;
  saldo: number;
  letra: string | null;
  punto_venta: number | null;
  numero: number | null;
  cae: string | null;
  vencido: boolean;
  pdf: boolean;
  pdf_motivo: string | null;
}
interface InvoicePage {
  items: InvoiceItem[];
  total: number;
  limit: number;
  offset: number;
}

async function list(token: string, query = ''): Promise<InvoicePage> {
  const response = await app.inject({
    method: 'GET',
    url: `/portal/facturas${query}`,
    headers: bearer(token),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ success: true; data: InvoicePage }>().data;
}

const pdfOf = (id: string, token = ana) =>
  app.inject({ method: 'GET', url: `/portal/facturas/${id}/pdf`, headers: bearer(token) });

async function textOf(response: LightMyRequestResponse): Promise<string> {
  expect(response.statusCode, response.body).toBe(200);
  const parser = new PDFParse({ data: new Uint8Array(response.rawPayload) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

/** The JSON text the QR's address carries (after `?p=`, Base64). */
function qrPayload(text: string): string {
  const prefix = 'https://www.afip.gob.ar/fe/qr/?p=';
  expect(text.startsWith(prefix), text).toBe(true);
  return Buffer.from(text.slice(prefix.length), 'base64').toString('utf8');
}

describe('GET /portal/facturas', () => {
  it('lists the period’s invoices and notes, newest first, paid or not; voided rows, receipts, other customers’ and older ones are absent', async () => {
    const page = await list(ana);
    expect(page.items.map((item) => item.id)).toEqual([
      ids.pendiente,
      ids.notaCredito,
      ids.facturaB,
      ids.notaDebitoDolares,
      ids.facturaA,
      ids.sinFiscal,
    ]);
    expect(page).toMatchObject({ total: 6, limit: 50, offset: 0 });
    const byId = new Map(page.items.map((item) => [item.id, item]));
    expect(byId.get(ids.facturaA)).toEqual({
      id: ids.facturaA,
      tipo: 'FAC',
      // The portal's name (docs/decisions.md #51): ARCA's number in 4 + 8 digits.
      comprobante: 'Factura A',
      nrocomp: '0003-00000123',
      fecha: '2026-10-13',
      vencimiento: '2026-11-12',
      importe: 1320.5,
      saldo: 1320.5,
      // Owed, and due before 21 November.
      vencido: true,
      letra: 'A',
      punto_venta: 3,
      numero: 123,
      cae: '76123456789012',
      pdf: true,
      pdf_motivo: null,
    });
    // Paid: the authorized total, nothing left, not overdue whatever its date.
    expect(byId.get(ids.facturaB)).toMatchObject({
      importe: 12100,
      saldo: 0,
      vencido: false,
      letra: 'B',
      pdf: true,
    });
    // A credit note owes nothing.
    expect(byId.get(ids.notaCredito)).toMatchObject({
      tipo: 'NC',
      importe: 121,
      saldo: 0,
      pdf: true,
    });
    // Its authorized total is in dollars; the ledger's balance in pesos. One capitalisation.
    expect(byId.get(ids.notaDebitoDolares)).toMatchObject({
      tipo: 'ND',
      comprobante: 'Nota de débito B',
      nrocomp: '0004-00000011',
      importe: 100,
      saldo: 105050,
    });
    // No CAE yet: the statement's figure, no PDF, and why.
    expect(byId.get(ids.pendiente)).toMatchObject({
      importe: 500,
      saldo: 500,
      cae: null,
      pdf: false,
      pdf_motivo: 'sin_cae',
    });
    // No fiscal row: what the statement shows (200 left + 300 paid), no PDF.
    expect(byId.get(ids.sinFiscal)).toEqual({
      id: ids.sinFiscal,
      tipo: 'FAC',
      comprobante: 'Factura B',
      nrocomp: '0001-00000099',
      fecha: '2026-09-01',
      vencimiento: null,
      importe: 500,
      saldo: 200,
      vencido: false,
      letra: null,
      punto_venta: null,
      numero: null,
      cae: null,
      pdf: false,
      // Not a CAE on its way: no fiscal row at all.
      pdf_motivo: 'sin_registro_fiscal',
    });
  });

  it('pages with limit and offset, the total counting the whole period', async () => {
    const page = await list(ana, '?limit=2&offset=1');
    expect(page.items.map((item) => item.id)).toEqual([ids.notaCredito, ids.facturaB]);
    expect(page).toMatchObject({ total: 6, limit: 2, offset: 1 });
    const past = await list(ana, '?offset=10');
    expect(past).toEqual({ items: [], total: 6, limit: 50, offset: 10 });
  });

  it('takes the statement’s period: desde and hasta, both days included', async () => {
    const old = await list(ana, '?desde=2025-01-01&hasta=2025-12-31');
    expect(old.items.map((item) => item.id)).toEqual([ids.antigua]);
    const oneDay = await list(ana, '?desde=2026-10-13&hasta=2026-10-13');
    expect(oneDay.items.map((item) => item.id)).toEqual([ids.facturaA]);
    const textilPage = await list(textil);
    expect(textilPage.items.map((item) => item.id)).toEqual([ids.deTextil]);
  });

  it('refuses a bad page or period with 422 VALIDATION_ERROR, and no token with 401', async () => {
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?offset=-1',
      '?desde=2026-02-30',
      '?desde=2026-11-02&hasta=2026-11-01',
    ]) {
      const response = await app.inject({
        method: 'GET',
        url: `/portal/facturas${query}`,
        headers: bearer(ana),
      });
      expect(response.statusCode, query).toBe(422);
      expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    }
    const anonymous = await app.inject({ method: 'GET', url: '/portal/facturas' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ success: false });
  });

  it('says pdf: false for every document of a tenant without an issuer', async () => {
    const page = await list(anaOfTenant2);
    expect(page.items).toEqual([
      expect.objectContaining({
        id: ids.deOtraEmpresa,
        cae: AUTHORIZED.cae,
        pdf: false,
        pdf_motivo: 'sin_datos_fiscales',
      }),
    ]);
  });
});

describe('GET /portal/facturas/{id}/pdf', () => {
  beforeEach(async () => {
    app = await appWithFreshCounters();
  });

  it('draws a Factura A: the letter and its code, issuer, receiver, lines with their rates, IVA by rate, CAE', async () => {
    const response = await pdfOf(ids.facturaA);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toBe(
      'attachment; filename="factura-a-0003-00000123.pdf"',
    );
    expect(response.headers['cache-control']).toBe('no-store');
    const text = await textOf(response);
    for (const expected of [
      'FACTURA',
      'A',
      'Cod. 01',
      'N.º 00003-00000123',
      'Fecha de emisión: 13/10/2026',
      'Distribuidora Ejemplo S.A.',
      'Domicilio comercial: Av. Corrientes 1234',
      'CUIT: 30-71234567-9',
      'Ingresos Brutos: 901-123456-7',
      'Inicio de actividades: 01/03/2015',
      'Señor(es): Ana Gómez',
      'Domicilio: Mitre 55, Rosario',
      'CUIT: 27-30111222-3',
      'Tornillos autoperforantes x 100',
      'Manual técnico de fijaciones',
      '21%',
      '10,5%',
      'Importe neto gravado:',
      '$ 1.100,00',
      'IVA 21%:',
      '$ 210,00',
      'IVA 10,5%:',
      '$ 10,50',
      'Importe total:',
      '$ 1.320,50',
      'CAE N.º: 76123456789012',
      'Vto. CAE: 23/10/2026',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('Transparencia');
    expect(text).not.toContain('Importe exento');
    expect(text).not.toContain('Moneda');
  });

  it('draws a Factura B to a consumidor final with prices including IVA and the Transparencia Fiscal block', async () => {
    const text = await textOf(await pdfOf(ids.facturaB));
    for (const expected of [
      'FACTURA',
      'Cod. 06',
      'N.º 00003-00000200',
      'Señor(es): Consumidor Final',
      'Condición frente al IVA: Consumidor Final',
      'Taladro percutor 750 W',
      '6.050,00',
      '$ 12.100,00',
      'Régimen de Transparencia Fiscal al Consumidor (Ley 27.743)',
      'IVA contenido: $ 2.100,00',
      'CAE N.º: 71234567890123',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('Importe neto gravado');
    expect(text).not.toContain('IVA 21%');
    // An unidentified receiver has no document line.
    expect(text).not.toContain('DNI:');
  });

  it('draws a credit note naming the invoice it adjusts, and a foreign-currency note with its rate', async () => {
    const credit = await textOf(await pdfOf(ids.notaCredito));
    expect(credit).toContain('NOTA DE CRÉDITO');
    expect(credit).toContain('Cod. 03');
    expect(credit).toContain('N.º 00003-00000007');
    expect(credit).toContain('Comprobante asociado: FACTURA A N.º 00003-00000123 del 13/10/2026');
    const debit = await pdfOf(ids.notaDebitoDolares);
    expect(debit.headers['content-disposition']).toBe(
      'attachment; filename="nota-de-debito-b-0004-00000011.pdf"',
    );
    const text = await textOf(debit);
    expect(text).toContain('NOTA DE DÉBITO');
    expect(text).toContain('Cod. 07');
    expect(text).toContain('Moneda: DOL (US$) · Tipo de cambio: 1.050,50');
    expect(text).toContain('US$ 100,00');
    expect(text).toContain('DNI: 12345678901234567890');
    expect(text).not.toContain('Transparencia');
  });

  it.skipIf(qr.skip)(
    qr.title('carries the RG 4892 QR, read at 300 dpi, with the authorized values field by field'),
    async () => {
      const [facturaA] = await qr.readQrCodes((await pdfOf(ids.facturaA)).rawPayload);
      expect(JSON.parse(qrPayload(facturaA ?? ''))).toStrictEqual({
        ver: 1,
        fecha: '2026-10-13',
        cuit: 30712345679,
        ptoVta: 3,
        tipoCmp: 1,
        nroCmp: 123,
        importe: 1320.5,
        moneda: 'PES',
        ctz: 1,
        tipoDocRec: 80,
        nroDocRec: 27301112223,
        tipoCodAut: 'E',
        codAut: 76123456789012,
      });
      // ARCA's field order, as its specification writes the object.
      expect(Object.keys(JSON.parse(qrPayload(facturaA ?? '')) as object)).toEqual([
        'ver',
        'fecha',
        'cuit',
        'ptoVta',
        'tipoCmp',
        'nroCmp',
        'importe',
        'moneda',
        'ctz',
        'tipoDocRec',
        'nroDocRec',
        'tipoCodAut',
        'codAut',
      ]);

      // Not identified (doc_tipo 99): no receiver fields.
      const [facturaB] = await qr.readQrCodes((await pdfOf(ids.facturaB)).rawPayload);
      expect(JSON.parse(qrPayload(facturaB ?? ''))).toStrictEqual({
        ver: 1,
        fecha: '2026-11-01',
        cuit: 30712345679,
        ptoVta: 3,
        tipoCmp: 6,
        nroCmp: 200,
        importe: 12100,
        moneda: 'PES',
        ctz: 1,
        tipoCodAut: 'E',
        codAut: 71234567890123,
      });

      // Dollars, and a document number past 2^53 written digit for digit (JSON.parse would round it).
      const [debit] = await qr.readQrCodes((await pdfOf(ids.notaDebitoDolares)).rawPayload);
      const json = qrPayload(debit ?? '');
      expect(json).toContain('"nroDocRec":12345678901234567890,');
      expect(JSON.parse(json)).toMatchObject({
        tipoCmp: 7,
        ptoVta: 4,
        nroCmp: 11,
        importe: 100,
        moneda: 'DOL',
        ctz: 1050.5,
        tipoDocRec: 96,
        codAut: 75000000000001,
      });
    },
    // Three pages rasterised at 300 dpi and decoded: seconds each on a busy machine.
    120_000,
  );

  it('answers 422 FACTURA_NO_DISPONIBLE for a document without a CAE or without a fiscal row, each with its own reason', async () => {
    const pending = await pdfOf(ids.pendiente);
    expect(pending.statusCode, pending.body).toBe(422);
    expect(pending.json()).toEqual({
      success: false,
      code: 'FACTURA_NO_DISPONIBLE',
      error:
        'Este comprobante todavía no tiene CAE de ARCA: su PDF estará disponible cuando se autorice',
    });
    // Never authorized electronically: not "todavía no tiene CAE", which would never come.
    const none = await pdfOf(ids.sinFiscal);
    expect(none.statusCode, none.body).toBe(422);
    expect(none.json()).toEqual({
      success: false,
      code: 'FACTURA_NO_DISPONIBLE',
      error:
        'Este comprobante no tiene registro fiscal de ARCA en el sistema de la empresa, así que no hay un PDF en el portal: pedíselo a la empresa',
    });
  });

  it('answers 404 FACTURA_NOT_FOUND alike for unknown, voided, a receipt, another customer’s, another tenant’s and malformed ids', async () => {
    const cases: [string, string][] = [
      ['unknown', '00000000-0000-4000-8000-000000000000'],
      ['voided', ids.anulada],
      ['receipt', ids.recibo],
      ['another customer’s', ids.deTextil],
      ['another tenant’s', ids.deOtraEmpresa],
      ['malformed', 'not-a-uuid'],
    ];
    const bodies = new Set<string>();
    for (const [what, id] of cases) {
      const response = await pdfOf(id);
      expect(response.statusCode, what).toBe(404);
      expect(response.json(), what).toMatchObject({ success: false, code: 'FACTURA_NOT_FOUND' });
      bodies.add(response.body);
    }
    // One answer for all: nothing tells them apart.
    expect(bodies.size).toBe(1);
    const anonymous = await app.inject({
      method: 'GET',
      url: `/portal/facturas/${ids.facturaA}/pdf`,
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ success: false });
  });

  it('answers 422 FACTURA_NO_DISPONIBLE for every document of a tenant without an issuer, and logs why once', async () => {
    const before = logs.lines.length;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const response = await pdfOf(ids.deOtraEmpresa, anaOfTenant2);
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json()).toMatchObject({
        success: false,
        code: 'FACTURA_NO_DISPONIBLE',
        error:
          'La empresa todavía no cargó sus datos fiscales: el comprobante no se puede descargar',
      });
      // Past the issuer's minute in the cache: read again, not logged again.
      clock.advance(61_000);
    }
    // This test's app (each logs it once): the earlier apps of the file logged it themselves.
    const why = logs.lines
      .slice(before)
      .filter((line) => line.includes('public.empfiscal is empty'));
    expect(why).toHaveLength(1);
    expect(JSON.parse(why[0] ?? '{}')).toMatchObject({ tenantId: 2 });
    // Tenant 1's documents are unaffected.
    expect((await pdfOf(ids.facturaA)).statusCode).toBe(200);
  });
});

describe('one name and one PDF rule on every answer (docs/decisions.md #51)', () => {
  beforeEach(async () => {
    app = await appWithFreshCounters();
  });

  interface Named {
    id: string;
    comprobante: string;
    nrocomp: string;
    pdf: boolean;
  }

  async function data<T>(url: string, token = ana): Promise<T> {
    const response = await app.inject({ method: 'GET', url, headers: bearer(token) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: T }>().data;
  }

  it('names each document and offers its PDF on the debts, the statement and the receipts as GET /portal/facturas does', async () => {
    const invoices = new Map((await list(ana)).items.map((item) => [item.id, item]));
    const asListed = (id: string) => {
      const item = invoices.get(id);
      return { id, comprobante: item?.comprobante, nrocomp: item?.nrocomp, pdf: item?.pdf };
    };

    // The debts: what is left, what it was issued for, and the PDF only where there is one.
    const { items: debts } = await data<{ items: (Named & { debe: number; importe: number })[] }>(
      '/portal/deudas',
    );
    const debtsById = new Map(debts.map((debt) => [debt.id, debt]));
    expect(debtsById.get(ids.notaDebitoDolares)).toMatchObject({
      comprobante: 'Nota de débito B',
      nrocomp: '0004-00000011',
      debe: 105050,
      importe: 105050,
      pdf: true,
    });
    // Paid 300 of 500 by the receipt: it says of what.
    expect(debtsById.get(ids.sinFiscal)).toMatchObject({ debe: 200, importe: 500, pdf: false });
    expect(debtsById.get(ids.pendiente)).toMatchObject({ pdf: false });
    expect(debtsById.get(ids.facturaA)).toMatchObject({ pdf: true });
    for (const debt of debts) {
      expect(
        { id: debt.id, comprobante: debt.comprobante, nrocomp: debt.nrocomp, pdf: debt.pdf },
        'deudas',
      ).toEqual(asListed(debt.id));
    }

    // The statement: each invoice and note as listed; a receipt has no invoice PDF.
    const statement = await data<{ movimientos: (Named & { tipo: string })[] }>(
      '/portal/estado-cuenta?desde=2026-01-01&hasta=2026-11-21',
    );
    expect(statement.movimientos.map((movement) => movement.id)).toContain(ids.recibo);
    for (const movement of statement.movimientos) {
      if (movement.tipo === 'REC') {
        expect(movement).toMatchObject({
          comprobante: 'Recibo',
          nrocomp: 'X0001-00000001',
          pdf: false,
        });
        continue;
      }
      expect(
        {
          id: movement.id,
          comprobante: movement.comprobante,
          nrocomp: movement.nrocomp,
          pdf: movement.pdf,
        },
        'estado-cuenta',
      ).toEqual(asListed(movement.id));
    }

    // The receipts: the invoices each paid, with what each was issued for.
    const { recibos } = await data<{
      recibos: (Named & { facturas: (Named & { monto: number; importe: number })[] })[];
    }>('/portal/recibos');
    const receipt = recibos.find((item) => item.id === ids.recibo);
    expect(receipt).toMatchObject({ comprobante: 'Recibo', nrocomp: 'X0001-00000001' });
    expect(receipt?.facturas).toEqual([
      { ...asListed(ids.facturaB), monto: 12100, importe: 12100 },
      { ...asListed(ids.sinFiscal), monto: 300, importe: 500 },
    ]);
  });

  it('offers no PDF on the debts of a tenant without an issuer', async () => {
    const { items } = await data<{ items: Named[] }>('/portal/deudas', anaOfTenant2);
    expect(items).toEqual([
      expect.objectContaining({ id: ids.deOtraEmpresa, nrocomp: '0001-00000001', pdf: false }),
    ]);
  });
});
