import { createHmac, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

/**
 * The honest baseline of the deudas scenario (docs/benchmarks.md "The read path under real
 * traffic"): GET /portal/deudas as a lean implementation would serve the same users. The user
 * comes from the access token (HS256 checked with node:crypto on every request, the payload's
 * id and expiry read); the same debts, through a named prepared statement with the dates
 * formatted and the amounts turned into numbers by PostgreSQL, each with what it was issued for
 * (its amount and what receipts applied to it), its fiscal row's letter and number, and the
 * payment in flight holding it, in one statement as the portal reads them; pg's rows go out as they come. No tenancy
 * lookup, session version, rate limit, security headers or request log: what the portal pays
 * for those is what the ratio shows. Prints its URL on stdout.
 */
const { BENCH_TENANT_URL, BENCH_JWT_SECRET, BENCH_SCHEMA } = process.env;
if (!BENCH_TENANT_URL || !BENCH_JWT_SECRET || !BENCH_SCHEMA || !/^\w+$/.test(BENCH_SCHEMA)) {
  throw new Error('lean-debts-server: BENCH_* settings missing');
}
const key = Buffer.from(BENCH_JWT_SECRET);
const pool = new pg.Pool({
  connectionString: BENCH_TENANT_URL,
  max: Number(process.env.BENCH_POOL_SIZE ?? 10),
});

const DEBTS = `
  SELECT o.id, o.comprobante, o.nrocomp, to_char(o.fecha, 'YYYY-MM-DD') AS fecha,
         to_char(o.vencimiento, 'YYYY-MM-DD') AS vencimiento, o.debe::float8 AS debe,
         (o.debe + coalesce((SELECT sum(l.monto) FROM ${BENCH_SCHEMA}.recfac l
                               JOIN ${BENCH_SCHEMA}.ordcta r ON r.id = l.recibo_id
                              WHERE l.factura_id = o.id AND r.cnro = o.cnro AND r.tipo = 'REC'
                                AND NOT r.anulado), 0))::float8 AS importe,
         x.letra, x.punto_venta, x.numero AS numero_fiscal,
         coalesce(o.vencimiento < (now() AT TIME ZONE 'America/Argentina/Buenos_Aires')::date, false) AS vencido,
         CASE WHEN h.payment_id IS NOT NULL
              THEN json_build_object('id', h.payment_id, 'checkout_url', h.checkout_url) END AS pago_en_curso
    FROM ${BENCH_SCHEMA}.portal_users u
    JOIN ${BENCH_SCHEMA}.ordcta o
      ON o.cnro = u.cnro AND o.tipo IN ('FAC', 'ND') AND o.saldo > 0 AND NOT o.anulado
    LEFT JOIN ${BENCH_SCHEMA}.cbtefis x ON x.ordcta_id = o.id
    LEFT JOIN (
      SELECT DISTINCT ON (f.debt_id) f.debt_id, p.id AS payment_id, p.checkout_url
        FROM public.portal_payments p
        LEFT JOIN public.portal_payment_approvals a ON a.payment_id = p.id
       CROSS JOIN LATERAL (SELECT lower(e ->> 'id') AS debt_id
                             FROM jsonb_array_elements(p.facturas_json) e) f
       WHERE p.portal_user_id = $1 AND p.tenant_id = 1
         AND (p.status IN ('pending', 'issued') OR (p.status = 'approved' AND p.recibo_id IS NULL))
         AND NOT (p.status = 'approved' AND a.amount IS NOT NULL
                  AND (a.amount IS DISTINCT FROM p.monto
                       OR upper(a.currency) <> upper(coalesce(p.currency, 'ARS'))))
       ORDER BY f.debt_id, p.id DESC) h ON h.debt_id = o.id::text
   WHERE u.id = $1
   ORDER BY o.vencimiento ASC NULLS LAST, o.fecha, o.nrocomp`;

/** The token's user, or undefined: a signature and an expiry check, nothing cached. */
function userOf(header: string | undefined): string | undefined {
  const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
  const [head, body, signature] = token?.split('.') ?? [];
  if (!head || !body || !signature) return undefined;
  const expected = createHmac('sha256', key).update(`${head}.${body}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as {
    portal_user_id?: unknown;
    exp?: unknown;
  };
  if (typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now()) return undefined;
  return typeof claims.portal_user_id === 'string' ? claims.portal_user_id : undefined;
}

const app = Fastify();
app.get('/portal/deudas', async (request, reply) => {
  const user = userOf(request.headers.authorization);
  if (!user) return reply.code(401).send({ success: false, error: 'token', code: 'UNAUTHORIZED' });
  const { rows } = await pool.query({ name: 'debts', text: DEBTS, values: [user] });
  return { success: true, data: { items: rows } };
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`bare debts ${url}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => pool.end());
});
