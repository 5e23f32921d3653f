import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { PDFParse } from 'pdf-parse';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceTokens } from '../../src/platform/reports/token.js';
import { generateOk, get, seedDebts } from '../coupons/helpers.js';
import { addAuthTenant, twoCustomers } from '../helpers/auth.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { decodeItf, decodePng } from '../helpers/itf.js';
import { freePort } from '../helpers/ports.js';
import { logoDataUri } from '../helpers/web-suite.js';
import { startReportsService, type ReportsService } from '../helpers/reports.js';

/*
 * GET /portal/cupones/{id}/pdf: the API checks the coupon, the reports service (its own process)
 * reads it through the ledger's coupon module and renders it with its ITF barcode.
 */

const SECRET = 'coupon-reports-secret-0123456789abcdef';

const env = useTestEnvironment();
let reports: ReportsService;
let app: FastifyInstance;
let ana: string;
let textil: string;
let debts: string[];

beforeAll(async () => {
  reports = await startReportsService({
    REPORTS_SERVICE_SECRET: SECRET,
    DATABASE_URL: env.systemUrl,
  });
  // The business's logo, networks and fiscal data: the coupon is a document on its own (issue 38).
  const tenant = await addAuthTenant(env, 1, {
    'portal.marca.logo': logoDataUri([200, 30, 30]),
    'portal.cupones.redes': 'Pago Fácil, Rapipago',
  });
  await tenant.query(
    `INSERT INTO public.empfiscal VALUES ('30712345678', 'Empresa 1 S.A.', 'San Martín 1',
       'IVA Responsable Inscripto', NULL, '2010-03-01')`,
  );
  debts = await seedDebts(tenant, 'suc0001', 1, [
    { nrocomp: '0001-00000771', saldo: '1000.50', comprobante: 'Factura A' },
    { nrocomp: '0001-00000772', saldo: '250.25' },
  ]);
  app = await env.app({ REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url });
  ({ ana, textil } = await twoCustomers(app));
});

afterAll(async () => {
  await reports.stop();
});

async function newCoupon() {
  return generateOk(app, ana, {
    facturas: [
      { id: debts[0], monto: 1000.5 },
      { id: debts[1], monto: 250.25 },
    ],
    total: 1250.75,
    dias_vencimiento: 10,
  });
}

describe('GET /portal/cupones/{id}/pdf', () => {
  it('renders the coupon: data, invoices, the 19 digits and an ITF symbol that decodes to them', async () => {
    const coupon = await newCoupon();
    const response = await get(app, ana, `/backend/portal/cupones/${coupon.cupon_id}/pdf`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toBe(
      // The 19 digits, the name the web client saves it under too.
      `attachment; filename="cupon-${coupon.codigo_barras}.pdf"`,
    );
    const parser = new PDFParse({ data: new Uint8Array(response.rawPayload) });
    try {
      const text = (await parser.getText()).text;
      // docs/decisions.md #38: the text under the bars shows the 19 digits, not the ITF's leading 0.
      expect(coupon.codigo_barras).toMatch(/^\d{19}$/);
      expect(text).toContain(coupon.codigo_barras);
      expect(text).not.toContain(`0${coupon.codigo_barras}`);
      for (const expected of [
        'Empresa 1',
        'Ana Gómez',
        '30111222',
        '$ 1.250,75',
        '0001-00000771',
        '0001-00000772',
        coupon.codigo_barras,
        coupon.fecha_vencimiento.split('-').reverse().join('/'),
        'CUIT 30-71234567-8',
        'Pago Fácil, Rapipago',
        // The sucursal the ERP calls "Sucursal 1", named once.
        'Sucursal 1',
      ]) {
        expect(text).toContain(expected);
      }
      expect(text).not.toContain('Sucursal Sucursal');
      const images = (await parser.getImage({ imageThreshold: 0 })).pages.flatMap(
        (page) => page.images,
      );
      // The logo and the barcode (the wide one).
      expect(images).toHaveLength(2);
      const barcode = images.find((image) => image.width > 2 * image.height);
      // ITF encodes digit pairs: a leading 0, then the code (docs/decisions.md #38).
      expect(decodeItf(decodePng(barcode?.data ?? new Uint8Array()))).toBe(
        `0${coupon.codigo_barras}`,
      );
    } finally {
      await parser.destroy();
    }
  });

  it('renders fresh each time: the state printed follows the ledger', async () => {
    const coupon = await newCoupon();
    const first = await get(app, ana, `/portal/cupones/${coupon.cupon_id}/pdf`);
    const context = await app.tenancy.resolve(1, 1);
    await context.db
      .withSchema('suc0001')
      .updateTable('ledger_cupones')
      .set({ estado: 'cancelled' })
      .where('id', '=', coupon.cupon_id)
      .execute();
    const second = await get(app, ana, `/portal/cupones/${coupon.cupon_id}/pdf`);
    const textOf = async (pdf: Buffer) => {
      const parser = new PDFParse({ data: new Uint8Array(pdf) });
      try {
        return (await parser.getText()).text;
      } finally {
        await parser.destroy();
      }
    };
    expect(await textOf(first.rawPayload)).toContain('Pendiente de pago');
    expect(await textOf(second.rawPayload)).toContain('Anulado');
  });

  it('an unknown coupon is 404 CUPON_NOT_FOUND; another customer’s is 403 FORBIDDEN', async () => {
    const coupon = await newCoupon();
    const unknown = await get(app, ana, `/portal/cupones/${randomUUID()}/pdf`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ success: false, code: 'CUPON_NOT_FOUND' });
    const foreign = await get(app, textil, `/portal/cupones/${coupon.cupon_id}/pdf`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ success: false, code: 'FORBIDDEN' });
  });

  it('a reports service that refuses the API’s token (secrets differ) is 502 INFORMES_SERVICE_ERROR', async () => {
    const coupon = await newCoupon();
    const mismatched = await env.app({
      REPORTS_SERVICE_SECRET: 'another-secret-that-the-reports-service-refuses',
      REPORTS_URL: reports.url,
    });
    const response = await get(mismatched, ana, `/portal/cupones/${coupon.cupon_id}/pdf`);
    expect(response.statusCode).toBe(502);
    expect(response.json()).toEqual({
      success: false,
      error: expect.any(String),
      code: 'INFORMES_SERVICE_ERROR',
    });
    // The same coupon renders with the right secret: it was the token that was refused.
    expect((await get(app, ana, `/portal/cupones/${coupon.cupon_id}/pdf`)).statusCode).toBe(200);
  });

  it('a reports service that is down is 502 INFORMES_SERVICE_ERROR', async () => {
    const coupon = await newCoupon();
    const down = await env.app({
      REPORTS_SERVICE_SECRET: SECRET,
      REPORTS_URL: `http://127.0.0.1:${await freePort()}`,
    });
    const response = await get(down, ana, `/portal/cupones/${coupon.cupon_id}/pdf`);
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ success: false, code: 'INFORMES_SERVICE_ERROR' });
  });
});

describe('the reports service’s coupon route', () => {
  async function fetchCoupon(id: string, token?: string) {
    const answer = await request(`${reports.url}/reports/cupones/${id}`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    return { status: answer.statusCode, body: Buffer.from(await answer.body.arrayBuffer()) };
  }

  it('reads the coupon in the token’s tenant and sucursal; no token is 401; unknown is 404', async () => {
    const coupon = await newCoupon();
    const tokens = createServiceTokens(SECRET);
    const ok = await fetchCoupon(
      coupon.cupon_id,
      await tokens.issue({ tenant_id: 1, sucursal_id: 1 }),
    );
    expect(ok.status).toBe(200);
    expect(ok.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect((await fetchCoupon(coupon.cupon_id)).status).toBe(401);
    const missing = await fetchCoupon(
      randomUUID(),
      await tokens.issue({ tenant_id: 1, sucursal_id: 1 }),
    );
    expect(missing.status).toBe(404);
    // Sucursal 2 keeps its customers in another schema: the coupon is not there.
    const elsewhere = await fetchCoupon(
      coupon.cupon_id,
      await tokens.issue({ tenant_id: 1, sucursal_id: 2 }),
    );
    expect(elsewhere.status).toBe(404);
  });

  it('without DATABASE_URL answers 503 SERVICE_UNAVAILABLE to a valid token, and the API 502', async () => {
    const coupon = await newCoupon();
    const withoutDatabase = await startReportsService({
      REPORTS_SERVICE_SECRET: SECRET,
      DATABASE_URL: undefined,
    });
    try {
      const token = await createServiceTokens(SECRET).issue({ tenant_id: 1, sucursal_id: 1 });
      const answer = await request(`${withoutDatabase.url}/reports/cupones/${coupon.cupon_id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(answer.statusCode).toBe(503);
      expect(await answer.body.json()).toMatchObject({
        success: false,
        code: 'SERVICE_UNAVAILABLE',
      });
      // Authentication still comes first.
      const anonymous = await request(`${withoutDatabase.url}/reports/cupones/${coupon.cupon_id}`);
      expect(anonymous.statusCode).toBe(401);
      await anonymous.body.dump();

      const api = await env.app({
        REPORTS_SERVICE_SECRET: SECRET,
        REPORTS_URL: withoutDatabase.url,
      });
      const response = await get(api, ana, `/portal/cupones/${coupon.cupon_id}/pdf`);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toMatchObject({ success: false, code: 'INFORMES_SERVICE_ERROR' });
    } finally {
      await withoutDatabase.stop();
    }
  });
});
