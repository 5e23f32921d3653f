import nodemailer from 'nodemailer';
import pg from 'pg';
import { Pool } from 'undici';
import { createServiceTokens } from '../src/platform/reports/token.js';

/**
 * The lean baseline of the receipts' e-mails (docs/benchmarks.md "A burst of approvals"): the same
 * "Recibimos tu pago" for the same receipts, done as leanly as Node allows. Per e-mail, one
 * statement claims it (the once-only row) and reads everything the message needs (the off switch,
 * the payment, its receipt with the debts it paid, the user's address); the reports service
 * renders the PDF over kept connections; nodemailer builds the MIME message and sends it over
 * kept SMTP connections; a second statement marks it sent. No job queue (the ids come in one
 * read), no tenancy lookup, no settings cache, no metrics or log lines: what the portal pays for
 * those is what the ratio shows. Prints one JSON line: the e-mails sent, the milliseconds, and
 * this process's CPU milliseconds (its start included).
 */
const { BENCH_TENANT_URL, BENCH_REPORTS_URL, BENCH_REPORTS_SECRET, BENCH_SMTP_PORT, BENCH_SCHEMA } =
  process.env;
if (
  !BENCH_TENANT_URL ||
  !BENCH_REPORTS_URL ||
  !BENCH_REPORTS_SECRET ||
  !BENCH_SMTP_PORT ||
  !BENCH_SCHEMA ||
  !/^\w+$/.test(BENCH_SCHEMA)
) {
  throw new Error('lean-receipt-mailer: BENCH_* settings missing');
}
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const TENANT_NAME = process.env.BENCH_TENANT_NAME ?? 'Bench';
const SUCURSAL = { id: 1, nombre: process.env.BENCH_SUCURSAL_NAME ?? 'Casa Central' };

const db = new pg.Pool({ connectionString: BENCH_TENANT_URL, max: CONCURRENCY });
const reports = new Pool(BENCH_REPORTS_URL, { connections: CONCURRENCY });
const smtp = nodemailer.createTransport({
  host: '127.0.0.1',
  port: Number(BENCH_SMTP_PORT),
  secure: false,
  ignoreTLS: true,
  pool: true,
  maxConnections: CONCURRENCY,
});

interface Row {
  email: string;
  cnom: string;
  ccui: string;
  cnro: number;
  payment_id: number;
  gateway_payment_id: string | null;
  metodo: string | null;
  numero: string;
  fecha: string;
  total: string;
  anulado: boolean;
  facturas: { tipo: string; numero: string; monto: string }[];
}

/*
 * The claim and the read in one statement: the claim's row is made (or taken when unsent and its
 * lease is over), and only a claimed e-mail's data comes back.
 */
const CLAIM_AND_READ = `
  WITH claim AS (
    INSERT INTO public.portal_payment_emails AS e (payment_id, kind, lease_until)
    VALUES ($1, 'pago_recibido', now() + interval '2 minutes')
    ON CONFLICT (payment_id, kind) DO UPDATE SET lease_until = excluded.lease_until
      WHERE e.sent_at IS NULL AND (e.lease_until IS NULL OR e.lease_until <= now())
    RETURNING payment_id
  )
  SELECT u.email, c.cnom, c.ccui, c.cnro, p.id AS payment_id, p.gateway_payment_id,
         p.gateway AS metodo, r.nrocomp AS numero, r.fecha::text AS fecha, r.haber::text AS total,
         r.anulado,
         (SELECT json_agg(json_build_object('tipo', f.comprobante, 'numero', f.nrocomp,
                                            'monto', l.monto::text)
                          ORDER BY f.vencimiento NULLS LAST, f.fecha, f.nrocomp)
            FROM ${BENCH_SCHEMA}.recfac l JOIN ${BENCH_SCHEMA}.ordcta f ON f.id = l.factura_id
           WHERE l.recibo_id = r.id) AS facturas
    FROM claim
    JOIN public.portal_payments p ON p.id = claim.payment_id
    JOIN ${BENCH_SCHEMA}.ordcta r ON r.id = p.recibo_id::uuid AND r.tipo = 'REC'
    JOIN ${BENCH_SCHEMA}.ordcon c ON c.cnro = r.cnro
    JOIN ${BENCH_SCHEMA}.portal_users u ON u.id = p.portal_user_id
   WHERE p.status = 'approved'
     AND coalesce((SELECT valor FROM public.ini WHERE clave = 'portal.mail.pago_recibido'), 'on') <> 'off'`;

const MARK_SENT = `
  UPDATE public.portal_payment_emails SET sent_at = now(), lease_until = NULL
   WHERE payment_id = $1 AND kind = 'pago_recibido'`;

const money = new Intl.NumberFormat('es-AR', { style: 'currency', currency: 'ARS' });

function text(row: Row): string {
  return [
    `Hola, ${row.cnom}:`,
    '',
    `Recibimos tu pago de ${money.format(Number(row.total))} en el portal de clientes de ${TENANT_NAME}.`,
    '',
    'Comprobantes pagados:',
    ...row.facturas.map((f) => `  ${f.tipo} ${f.numero}: ${money.format(Number(f.monto))}`),
    '',
    `Recibo ${row.numero} del ${row.fecha.split('-').reverse().join('/')} (adjunto en PDF).`,
    '',
    'Gracias por tu pago.',
  ].join('\n');
}

async function render(token: string, row: Row): Promise<Buffer> {
  const answer = await reports.request({
    method: 'POST',
    path: '/reports/portal-recibo',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      empresa: { nombre: TENANT_NAME },
      sucursal: SUCURSAL,
      cliente: { nombre: row.cnom, documento: row.ccui, numero: row.cnro },
      recibo: { numero: row.numero, fecha: row.fecha, anulado: row.anulado },
      pago: {
        payment_id: row.payment_id,
        metodo: row.metodo ?? 'desconocido',
        gateway_payment_id: row.gateway_payment_id,
      },
      facturas: row.facturas,
      total: row.total,
    }),
  });
  const pdf = Buffer.from(await answer.body.arrayBuffer());
  if (answer.statusCode !== 200) throw new Error(`reports service answered ${answer.statusCode}`);
  return pdf;
}

async function mailOne(token: string, paymentId: number): Promise<boolean> {
  const { rows } = await db.query<Row>({
    name: 'claim',
    text: CLAIM_AND_READ,
    values: [paymentId],
  });
  const row = rows[0];
  if (!row) return false;
  const pdf = await render(token, row);
  await smtp.sendMail({
    from: 'Bench <avisos@bench.example>',
    to: row.email,
    subject: `Recibimos tu pago - ${TENANT_NAME}`,
    text: text(row),
    attachments: [
      {
        filename: `recibo-${row.numero.toLowerCase()}.pdf`,
        content: pdf,
        contentType: 'application/pdf',
      },
    ],
  });
  await db.query({ name: 'mark', text: MARK_SENT, values: [paymentId] });
  return true;
}

const { rows: ids } = await db.query<{ id: number }>(
  `SELECT id FROM public.portal_payments WHERE reference LIKE 'bench-%' ORDER BY id`,
);
const token = await createServiceTokens(BENCH_REPORTS_SECRET).issue({
  tenant_id: 1,
  sucursal_id: 1,
});
// Warm the connections, as a running service's would be, before the clock starts.
await smtp.verify();
let next = 0;
let sent = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (let id = ids[next++]?.id; id !== undefined; id = ids[next++]?.id) {
      if (await mailOne(token, id)) sent += 1;
    }
  }),
);
const ms = performance.now() - started;
const cpu = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ sent, ms, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
smtp.close();
await reports.close();
await db.end();
