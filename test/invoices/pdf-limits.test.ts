import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertIssuer, longInvoiceLines } from '../../src/dev/fiscal-fixture.js';
import { INVOICE_LINES_PER_UNIT } from '../../src/modules/invoices/pdf-limits.js';
import { addAuthTenant, bearer, login, TEXTIL, twoCustomers } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { insertFiscalRow, ISSUER } from '../helpers/invoices.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  type ReportsService,
} from '../helpers/reports.js';

/*
 * GET /portal/facturas/{id}/pdf's fair-use limit (docs/api.md "Limits"): 10 units a minute per
 * tenant + portal user, a document costing one per 200 lines, and one render per customer at a
 * time, both 429 RATE_LIMITED with Retry-After, counted apart from the statement PDF's. The real
 * app, PostgreSQL and reports service.
 */

const SECRET = TEST_REPORTS_SECRET;

const env = useTestEnvironment();
let reports: ReportsService;
let tenant: TestTenant;
const invoices = { ana: '', textil: '', long: '', longest: '' };

function fiscal(numero: number, lineas = 200) {
  return {
    tipo_cbte: 6,
    letra: 'B',
    punto_venta: 1,
    numero,
    fecha: '2026-11-01',
    cae: '71234567890123',
    cae_vto: '2026-11-11',
    doc_tipo: 99,
    doc_nro: '0',
    receptor_nombre: 'Consumidor Final',
    receptor_domicilio: null,
    receptor_cond_iva: 'Consumidor Final',
    neto: '100.00',
    iva: '21.00',
    total: '121.00',
    // 200 by default: enough lines to keep a render under way while a second request arrives,
    // and still one unit of the budget.
    lineas: longInvoiceLines(lineas),
    alicuotas: [{ alicuota: '21', base: '100.00', importe: '21.00' }],
  };
}

beforeAll(async () => {
  reports = await sharedReportsService();
  tenant = await addAuthTenant(env, 1);
  await insertIssuer((text, values) => tenant.query(text, values), ISSUER);
  for (const [who, cnro] of [
    ['ana', 1],
    ['textil', 2],
  ] as const) {
    invoices[who] = await insertFiscalRow(
      tenant,
      {
        cnro,
        tipo: 'FAC',
        comprobante: 'Factura B',
        nrocomp: `0001-0000000${cnro}`,
        fecha: '2026-11-01',
        debe: '121.00',
        saldo: '121.00',
      },
      fiscal(cnro),
    );
  }
  // Ana's long documents: 3 units (401-600 lines) and the whole budget (the 106-page one).
  for (const [which, lines, numero] of [
    ['long', 2 * INVOICE_LINES_PER_UNIT + 50, 3],
    ['longest', 1_990, 4],
  ] as const) {
    invoices[which] = await insertFiscalRow(
      tenant,
      {
        cnro: 1,
        tipo: 'FAC',
        comprobante: 'Factura B',
        nrocomp: `0001-0000000${numero}`,
        fecha: '2026-11-01',
        debe: '121.00',
        saldo: '121.00',
      },
      fiscal(numero, lines),
    );
  }
  await twoCustomers(await appWith());
});

afterAll(async () => {
  await reports.stop();
});

function appWith() {
  return env.app({ REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url });
}

async function tokensOf(app: FastifyInstance) {
  return { ana: (await login(app)).accessToken, textil: (await login(app, TEXTIL)).accessToken };
}

const pdf = (app: FastifyInstance, token: string, id: string) =>
  app.inject({ method: 'GET', url: `/portal/facturas/${id}/pdf`, headers: bearer(token) });

function expectLimited(response: LightMyRequestResponse): number {
  expect(response.statusCode, response.body).toBe(429);
  expect(response.json()).toMatchObject({ success: false, code: 'RATE_LIMITED' });
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  return retryAfter;
}

describe('the invoice PDF’s fair-use limit', () => {
  it('takes 10 PDFs a minute per customer, the 11th is 429 with Retry-After; other customers and the statement PDF keep their budgets', async () => {
    const app = await appWith();
    const { ana, textil } = await tokensOf(app);
    for (let n = 0; n < 10; n += 1) {
      const response = await pdf(app, ana, invoices.ana);
      expect(response.statusCode, `PDF ${n + 1}: ${response.body}`).toBe(200);
    }
    expect(expectLimited(await pdf(app, ana, invoices.ana))).toBeGreaterThan(3);
    // Refused before anything is read: a document she cannot see is refused the same way.
    expectLimited(await pdf(app, ana, invoices.textil));
    expect((await pdf(app, textil, invoices.textil)).statusCode).toBe(200);
    const statement = await app.inject({
      method: 'GET',
      url: '/portal/estado-cuenta/pdf',
      headers: bearer(ana),
    });
    expect(statement.statusCode, statement.body).toBe(200);
    // The list is not limited by it.
    const list = await app.inject({ method: 'GET', url: '/portal/facturas', headers: bearer(ana) });
    expect(list.statusCode).toBe(200);
  });

  it('renders one PDF per customer at a time: a second while one renders is 429 with a short Retry-After, and does not count', async () => {
    const app = await appWith();
    const { ana, textil } = await tokensOf(app);
    const [first, second, other] = await Promise.all([
      pdf(app, ana, invoices.ana),
      pdf(app, ana, invoices.ana),
      pdf(app, textil, invoices.textil),
    ]);
    const statuses = [first, second].map((response) => response.statusCode).sort((a, b) => a - b);
    expect(statuses).toEqual([200, 429]);
    const refused = [first, second].find((response) => response.statusCode === 429);
    expect(refused?.headers['retry-after']).toBe('3');
    expect(other.statusCode, other.body).toBe(200);
    // The refused one spent nothing: nine more go, then the limit.
    for (let n = 0; n < 9; n += 1) expect((await pdf(app, ana, invoices.ana)).statusCode).toBe(200);
    expectLimited(await pdf(app, ana, invoices.ana));
  });

  it('counts a long invoice for more: one of 450 lines is 3 of the 10, so seven more go and the eighth is 429', async () => {
    const app = await appWith();
    const { ana, textil } = await tokensOf(app);
    const long = await pdf(app, ana, invoices.long);
    expect(long.statusCode, long.body).toBe(200);
    for (let n = 0; n < 7; n += 1) {
      const response = await pdf(app, ana, invoices.ana);
      expect(response.statusCode, `PDF ${n + 1} after the long one: ${response.body}`).toBe(200);
    }
    expect(expectLimited(await pdf(app, ana, invoices.ana))).toBeGreaterThan(3);
    // Her long invoice spent her budget, nobody else's.
    expect((await pdf(app, textil, invoices.textil)).statusCode).toBe(200);
  });

  it('lets the longest (1,990 lines) take a whole minute’s budget: asked for after another PDF it is 429 for the rest of the window, and what it could not take stays for short ones', async () => {
    const fresh = await appWith();
    const first = await tokensOf(fresh);
    const longest = await pdf(fresh, first.ana, invoices.longest);
    expect(longest.statusCode, longest.body).toBe(200);
    expect(longest.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // Nothing is left of her minute.
    expectLimited(await pdf(fresh, first.ana, invoices.ana));

    const app = await appWith();
    const { ana } = await tokensOf(app);
    expect((await pdf(app, ana, invoices.ana)).statusCode).toBe(200);
    const refused = await pdf(app, ana, invoices.longest);
    expect(expectLimited(refused)).toBeGreaterThan(3);
    expect(refused.json<{ error: string }>().error).toContain('1.990 líneas');
    // The refused request counted its one unit, as any request does, and no more: one short
    // PDF, the refusal and eight more are the ten.
    for (let n = 0; n < 8; n += 1) {
      const response = await pdf(app, ana, invoices.ana);
      expect(response.statusCode, `PDF ${n + 1} after the refusal: ${response.body}`).toBe(200);
    }
    expectLimited(await pdf(app, ana, invoices.ana));
  });
});
