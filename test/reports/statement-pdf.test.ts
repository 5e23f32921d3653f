import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import fc from 'fast-check';
import { PDFParse } from 'pdf-parse';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { centsToNumeric } from '../../src/platform/money.js';
import { createReportsClient, ReportsError } from '../../src/platform/reports/client.js';
import { formatMoney } from '../../src/platform/format.js';
import { pageCount, planPages, type PageCapacity } from '../../src/reports/pdf/pagination.js';
import { MAX_STATEMENT_MOVEMENTS, type StatementReport } from '../../contract/reports.js';
import {
  renderStatement,
  STATEMENT_BODY_LIMIT,
  STATEMENT_CAPACITY,
} from '../../src/reports/statement-report.js';
import { createServiceTokens } from '../../src/platform/reports/token.js';
import { freePort } from '../helpers/ports.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  type ReportsService,
} from '../helpers/reports.js';

/*
 * POST /reports/portal-estado-cuenta against the real reports service (its own process, called
 * over HTTP with the API's service token), the API's client method for it, and the pagination
 * arithmetic that lets the PDF say "Página N de M" while it streams.
 */

const SECRET = TEST_REPORTS_SECRET;
const CLAIMS = { tenant_id: 1, sucursal_id: 1 };

let reports: ReportsService;
let token: string;

beforeAll(async () => {
  reports = await sharedReportsService();
});

// Service tokens live 60 s and this file runs longer under load: each test signs a fresh one.
beforeEach(async () => {
  token = await createServiceTokens(SECRET).issue(CLAIMS);
});

afterAll(async () => {
  await reports.stop();
});

type Movement = StatementReport['movimientos'][number];

/**
 * A statement of `count` movements whose figures add up, as the API sends it: invoices of
 * growing amounts, every fourth movement a receipt. Amounts are cents / 100.
 */
function statement(count: number, shape: (movement: Movement) => Movement = (m) => m) {
  let balance = 150_000;
  let debits = 0;
  let credits = 0;
  const movimientos = Array.from({ length: count }, (_, index): Movement => {
    const receipt = index % 4 === 3;
    const debit = receipt ? 0 : 100_050 + index * 101;
    const credit = receipt ? 250_000 : 0;
    balance += debit - credit;
    debits += debit;
    credits += credit;
    const day = String((index % 28) + 1).padStart(2, '0');
    const month = String((Math.floor(index / 28) % 3) + 1).padStart(2, '0');
    return shape({
      fecha: `2026-${month}-${day}`,
      tipo: receipt ? 'REC' : 'FAC',
      comprobante: receipt ? 'Recibo' : 'Factura B',
      nrocomp: `${receipt ? 'RC' : ''}0001-${String(index + 1).padStart(8, '0')}`,
      vencimiento: receipt ? null : '2026-04-30',
      debe: debit / 100,
      haber: credit / 100,
      saldo: balance / 100,
    });
  });
  return {
    empresa: 'Ferretería Sur S.A.',
    cliente: { nombre: 'Ana Gómez', dni_cuit: '27-30111222-4' },
    desde: '2026-01-01',
    hasta: '2026-03-31',
    saldo_inicial: 1500,
    movimientos,
    total_debe: debits / 100,
    total_haber: credits / 100,
    saldo_final: balance / 100,
    antiguedad: {
      a_vencer: 1000.5,
      vencido_1_30: 2000,
      vencido_31_60: 0,
      vencido_61_90: 12.34,
      vencido_mas_90: 98765.43,
    },
  } satisfies StatementReport;
}

const money = (amount: number) => formatMoney(centsToNumeric(Math.round(amount * 100)));

/** `bearer` null: no Authorization header. */
async function post(body: unknown, bearer: string | null = token) {
  const answer = await request(`${reports.url}/reports/portal-estado-cuenta`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(bearer !== null && { authorization: `Bearer ${bearer}` }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: answer.statusCode,
    headers: answer.headers,
    body: Buffer.from(await answer.body.arrayBuffer()),
  };
}

async function pdfPages(pdf: Buffer): Promise<string[]> {
  const parser = new PDFParse({ data: new Uint8Array(pdf) });
  try {
    return (await parser.getText()).pages.map((page) => page.text);
  } finally {
    await parser.destroy();
  }
}

/**
 * A request that declares a body of `bytes` and sends only its first few: the service refuses
 * it from the Content-Length alone, before the upload (the answer may come while the rest is
 * unsent, so nothing more is written and the socket is dropped once it is read).
 */
function postDeclaring(bytes: number): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const outgoing = httpRequest(
      `${reports.url}/reports/portal-estado-cuenta`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(bytes),
          authorization: `Bearer ${token}`,
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          answered = true;
          resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks) });
          outgoing.destroy();
        });
      },
    );
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    outgoing.write('{"empresa":"');
  });
}

function expectError(answer: { status: number; body: Buffer }, status: number, code: string) {
  expect(answer.status, answer.body.toString()).toBe(status);
  expect(JSON.parse(answer.body.toString())).toEqual({
    success: false,
    error: expect.any(String),
    code,
  });
}

describe('POST /reports/portal-estado-cuenta', () => {
  it('renders a small statement: tenant, customer, period, balances, every movement', async () => {
    const data = statement(6);
    const answer = await post(data);
    expect(answer.status, answer.body.toString()).toBe(200);
    expect(answer.headers['content-type']).toBe('application/pdf');
    expect(answer.headers['cache-control']).toBe('no-store');
    // Streamed as it is drawn: no length known up front.
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(answer.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const pages = await pdfPages(answer.body);
    expect(pages).toHaveLength(1);
    const text = pages[0] ?? '';
    for (const expected of [
      'Ferretería Sur S.A.',
      'Estado de cuenta',
      'Ana Gómez',
      '27-30111222-4',
      '01/01/2026 al 31/03/2026',
      '$ 1.500,00',
      `Saldo final al 31/03/2026`,
      money(data.saldo_final),
      money(data.total_debe),
      money(data.total_haber),
      'Página 1 de 1',
    ]) {
      expect(text).toContain(expected);
    }
    for (const movement of data.movimientos) {
      expect(text).toContain(movement.nrocomp);
      expect(text).toContain(money(movement.saldo));
      expect(text).toContain(money(movement.debe === 0 ? movement.haber : movement.debe));
    }
    expect(text).toContain('02/01/2026');
    expect(text).toContain('30/04/2026');
    for (const label of ['A vencer', 'Vencido 1-30', '31-60', '61-90', 'más de 90 días']) {
      expect(text).toContain(label);
    }
    for (const amount of ['$ 1.000,50', '$ 2.000,00', '$ 0,00', '$ 12,34', '$ 98.765,43']) {
      expect(text).toContain(amount);
    }
  });

  it('repeats the table header on every page and numbers them "Página N de M"', async () => {
    const data = statement(150);
    const answer = await post(data);
    expect(answer.status, answer.body.toString()).toBe(200);
    const pages = await pdfPages(answer.body);
    // Row 0 is the opening balance, then the movements.
    const plan = planPages(1 + data.movimientos.length, STATEMENT_CAPACITY);
    expect(pages.length).toBe(plan.length);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    pages.forEach((text, index) => {
      for (const header of ['Fecha', 'Comprobante', 'Vencimiento', 'Debe', 'Haber', 'Saldo']) {
        expect(text, `page ${index + 1}`).toContain(header);
      }
      expect(text).toContain(`Página ${index + 1} de ${pages.length}`);
      // Each movement on the page the plan put it on, and nowhere else.
      const rows = plan[index] ?? { start: 0, end: 0 };
      data.movimientos.forEach((movement, position) => {
        const onThisPage = position + 1 >= rows.start && position + 1 < rows.end;
        expect(text.includes(movement.nrocomp), `${movement.nrocomp} on page ${index + 1}`).toBe(
          onThisPage,
        );
      });
    });
    expect(pages[0]).toContain('Ana Gómez');
    expect(pages.at(-1)).toContain('Totales del período');
    expect(pages.at(-1)).toContain(money(data.saldo_final));
    expect(pages.slice(0, -1).join('')).not.toContain('Totales del período');
  });

  it('keeps a long voucher name on its one row, cut before its number', async () => {
    const long = 'Factura de crédito electrónica MiPyME (FCE) A, emitida por la sucursal centro';
    const data = statement(30, (movement) =>
      movement.tipo === 'FAC' ? { ...movement, comprobante: long } : movement,
    );
    const answer = await post(data);
    expect(answer.status, answer.body.toString()).toBe(200);
    const pages = await pdfPages(answer.body);
    expect(pages).toHaveLength(planPages(31, STATEMENT_CAPACITY).length);
    const text = pages.join('\n');
    expect(text).not.toContain(long);
    expect(text).toMatch(/Factura de crédito.*… 0001-00000001/);
    for (const movement of data.movimientos) expect(text).toContain(movement.nrocomp);
  });

  it('renders a period without movements, and an empty voucher name as its kind', async () => {
    const empty = await post({ ...statement(0), saldo_inicial: 0, saldo_final: 0 });
    expect(empty.status, empty.body.toString()).toBe(200);
    const [text = ''] = await pdfPages(empty.body);
    expect(text).toContain('Sin movimientos en el período');
    expect(text).toContain('Página 1 de 1');

    const unnamed = statement(2, (movement) => ({ ...movement, comprobante: '' }));
    const answer = await post(unnamed);
    expect(answer.status, answer.body.toString()).toBe(200);
    expect((await pdfPages(answer.body)).join('')).toContain('Factura 0001-00000001');
  });

  it('refuses a call without a valid service token with 401 before reading the body', async () => {
    const other = await createServiceTokens('not-the-reports-secret-at-all-0123456789').issue(
      CLAIMS,
    );
    for (const bearer of [null, other, 'not-a-jwt']) {
      const answer = await post(statement(3), bearer);
      expectError(answer, 401, 'UNAUTHORIZED');
      expect(answer.headers['content-type']).toMatch(/application\/json/);
      expect(answer.body.includes('%PDF')).toBe(false);
    }
    // Neither a broken body nor one over the limit is looked at without a token.
    expectError(await post('{not json', null), 401, 'UNAUTHORIZED');
    const huge = await request(`${reports.url}/reports/portal-estado-cuenta`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(STATEMENT_BODY_LIMIT + 1),
      },
      body: Buffer.alloc(STATEMENT_BODY_LIMIT + 1, 32),
    });
    expect(huge.statusCode).toBe(401);
    await huge.body.dump();
  });

  it('refuses a malformed body with 400 INVALID_REQUEST in the service’s envelope', async () => {
    const good = statement(3);
    const [first = good.movimientos[0] as Movement] = good.movimientos;
    const { empresa: _missing, ...withoutTenant } = good;
    const bodies: unknown[] = [
      '{"empresa":',
      withoutTenant,
      { ...good, desde: '01/01/2026' },
      { ...good, hasta: '2026-02-30' },
      { ...good, extra: true },
      { ...good, saldo_inicial: '1500.00' },
      { ...good, movimientos: [{ ...first, tipo: 'XX' }, ...good.movimientos.slice(1)] },
      { ...good, movimientos: [{ ...first, vencimiento: '2026-13-01' }] },
      { ...good, movimientos: [{ ...first, debe: null }] },
    ];
    for (const body of bodies) expectError(await post(body), 400, 'INVALID_REQUEST');
  });

  it('refuses figures that do not add up, more than 2 decimals, a period backwards: 400', async () => {
    const good = statement(4);
    const [first, second, ...rest] = good.movimientos as [Movement, Movement, ...Movement[]];
    const cases: [body: StatementReport, message: RegExp][] = [
      [{ ...good, desde: '2026-04-01' }, /desde/],
      [{ ...good, saldo_inicial: 1500.001 }, /saldo_inicial.*2 decimales/],
      [
        { ...good, movimientos: [first, { ...second, saldo: second.saldo + 1 }, ...rest] },
        /movimientos\[1\]\.saldo/,
      ],
      [{ ...good, total_debe: good.total_debe + 0.01 }, /total_debe/],
      [{ ...good, total_haber: 0 }, /total_haber/],
      [{ ...good, saldo_final: 0 }, /saldo_final/],
      [{ ...good, antiguedad: { ...good.antiguedad, a_vencer: 0.125 } }, /a_vencer/],
    ];
    for (const [body, message] of cases) {
      const answer = await post(body);
      expectError(answer, 400, 'INVALID_REQUEST');
      expect(JSON.parse(answer.body.toString())).toMatchObject({
        error: expect.stringMatching(message),
      });
    }
    // A client's float sum is the 2-decimal value it renders (docs/api.md "Bodies and values").
    const noisy = statement(1, (movement) => ({ ...movement, debe: 100.1 + 200.2 }));
    const balance = 1500 + 300.3;
    const accepted = await post({
      ...noisy,
      movimientos: noisy.movimientos.map((movement) => ({ ...movement, saldo: balance })),
      total_debe: 300.3,
      saldo_final: balance,
    });
    expect(accepted.status, accepted.body.toString()).toBe(200);
  });

  it(`takes ${MAX_STATEMENT_MOVEMENTS} movements with every text at its longest, and refuses one more`, async () => {
    const widest = (movement: Movement): Movement => ({
      ...movement,
      comprobante: 'ñ'.repeat(200),
      nrocomp: 'ñ'.repeat(100),
      debe: 9_999_999_999.99,
    });
    // A period backwards is refused after the body is read and validated, before any drawing:
    // a 400 that names it shows the size and the count were accepted.
    const atCap = { ...statement(MAX_STATEMENT_MOVEMENTS, widest), desde: '2026-04-01' };
    const body = JSON.stringify(atCap);
    expect(Buffer.byteLength(body)).toBeLessThan(STATEMENT_BODY_LIMIT);
    const answer = await post(body);
    expectError(answer, 400, 'INVALID_REQUEST');
    expect(answer.body.toString()).toMatch(/desde/);

    const overCap = statement(MAX_STATEMENT_MOVEMENTS + 1);
    const refused = await post(overCap);
    expectError(refused, 400, 'INVALID_REQUEST');
    expect(refused.body.toString()).toMatch(/20000/);

    const tooLarge = await postDeclaring(STATEMENT_BODY_LIMIT + 1);
    expectError(tooLarge, 413, 'PAYLOAD_TOO_LARGE');
    // The route's own limit, not the API's 100 KB.
    expect(tooLarge.body.toString()).toContain(
      `${Math.round(STATEMENT_BODY_LIMIT / 1024).toLocaleString('es-AR')} KB`,
    );
  });

  it('serves other requests while a long statement renders, and survives a reader that leaves', async () => {
    const long = JSON.stringify(statement(2_000));
    const controller = new AbortController();
    const abandoned = request(`${reports.url}/reports/portal-estado-cuenta`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: long,
      signal: controller.signal,
    }).then(async (answer) => {
      // Read the first chunk, then leave.
      for await (const _chunk of answer.body) break;
      controller.abort();
    });
    const [small] = await Promise.all([post(statement(2)), abandoned.catch(() => undefined)]);
    expect(small.status).toBe(200);
    const health = await request(`${reports.url}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    const again = await post(long);
    expect(again.status).toBe(200);
    expect(await pdfPages(again.body)).toHaveLength(planPages(2_001, STATEMENT_CAPACITY).length);
  });
});

describe('renderStatement', () => {
  it('draws no further than its reader reads: memory does not grow with the pages', async () => {
    const stream: Readable = renderStatement(statement(5_000));
    // Start it, then read nothing more.
    stream.read(0);
    let before = -1;
    while (stream.readableLength !== before) {
      before = stream.readableLength;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The whole document is about 300 KB; what waits unread is the buffer's 64 KB and a page.
    expect(stream.readableLength).toBeGreaterThan(0);
    expect(stream.readableLength).toBeLessThan(96 * 1024);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const pdf = Buffer.concat(chunks);
    expect(pdf.length).toBeGreaterThan(200 * 1024);
    expect(pdf.subarray(-6).toString('latin1')).toBe('%%EOF\n');
  });
});

describe('the pagination arithmetic', () => {
  const capacity = fc
    .record({
      summary: fc.integer({ min: 0, max: 20 }),
      firstExtra: fc.integer({ min: 1, max: 60 }),
      otherExtra: fc.integer({ min: 1, max: 60 }),
    })
    .map(({ summary, firstExtra, otherExtra }): PageCapacity => ({
      summary,
      firstPage: summary + firstExtra,
      otherPages: summary + otherExtra,
    }));

  it('puts every row on exactly one page, in order, at least one a page, never overfull', () => {
    fc.assert(
      fc.property(capacity, fc.integer({ min: 1, max: 5_000 }), (room, rows) => {
        const plan = planPages(rows, room);
        expect(plan[0]?.start).toBe(0);
        expect(plan.at(-1)?.end).toBe(rows);
        plan.forEach((page, index) => {
          const fits = index === 0 ? room.firstPage : room.otherPages;
          const last = index === plan.length - 1;
          expect(page.end - page.start).toBeGreaterThanOrEqual(1);
          expect(page.end - page.start + (last ? room.summary : 0)).toBeLessThanOrEqual(fits);
          if (index > 0) expect(page.start).toBe(plan[index - 1]?.end);
        });
      }),
    );
  });

  it('knows the page count up front, and it is the fewest pages that hold everything', () => {
    fc.assert(
      fc.property(capacity, fc.integer({ min: 1, max: 5_000 }), (room, rows) => {
        const pages = pageCount(rows, room);
        expect(planPages(rows, room)).toHaveLength(pages);
        // One page fewer has too few slots for the rows and the summary.
        const slots = (count: number) => room.firstPage + (count - 1) * room.otherPages;
        if (pages > 1) expect(slots(pages - 1)).toBeLessThan(rows + room.summary);
      }),
    );
  });

  it('gives the statement about 40 pages for 2,000 movements', () => {
    expect(pageCount(2_001, STATEMENT_CAPACITY)).toBeGreaterThanOrEqual(38);
    expect(pageCount(2_001, STATEMENT_CAPACITY)).toBeLessThanOrEqual(45);
  });

  it('refuses a page that cannot hold one row and the summary', () => {
    expect(() => planPages(10, { firstPage: 5, otherPages: 9, summary: 5 })).toThrow(RangeError);
    expect(() => planPages(0, STATEMENT_CAPACITY)).toThrow(RangeError);
  });
});

describe('the API’s client: statement()', () => {
  const calls: string[] = [];
  const metrics = {
    reportsCall: (report: string, outcome: string) => {
      calls.push(`${report}:${outcome}`);
    },
  };

  async function fakeService(
    answer: (res: ServerResponse) => void,
  ): Promise<{ url: string; server: Server }> {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  }

  const clientFor = (url: string, timeoutMs = 10_000) =>
    createReportsClient({ url, secret: SECRET, timeoutMs, metrics });

  it('returns the whole PDF, counted as report=statement', async () => {
    calls.length = 0;
    const pdf = await clientFor(reports.url).statement(CLAIMS, statement(60));
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect((await pdfPages(pdf)).at(-1)).toContain('Totales del período');
    expect(calls).toEqual(['statement:ok']);
  });

  it('gives a ReportsError for a 4xx, a refused connection, a timeout or a PDF cut short', async () => {
    calls.length = 0;
    const client = clientFor(reports.url);
    await expect(
      client.statement(CLAIMS, { ...statement(2), saldo_final: 1 }),
    ).rejects.toBeInstanceOf(ReportsError);
    const down = clientFor(`http://127.0.0.1:${await freePort()}`);
    await expect(down.statement(CLAIMS, statement(2))).rejects.toBeInstanceOf(ReportsError);

    const servers = [
      await fakeService(() => undefined),
      // A 200 that streams the start of a PDF and then stops, cleanly or not.
      await fakeService((res) => {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        res.end('%PDF-1.3\n%\xFF\xFF\xFF\xFF\n1 0 obj\n');
      }),
      await fakeService((res) => {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        res.write('%PDF-1.3\n');
        setTimeout(() => res.destroy(), 20);
      }),
    ];
    try {
      for (const { url } of servers) {
        await expect(clientFor(url, 300).statement(CLAIMS, statement(2))).rejects.toBeInstanceOf(
          ReportsError,
        );
      }
    } finally {
      for (const { server } of servers) {
        server.closeAllConnections();
        server.close();
      }
    }
    expect(calls).toEqual(Array.from({ length: 5 }, () => 'statement:error'));
  });
});
