import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { bearer, ORIGIN } from './auth.js';
import type { TestTenant } from './harness.js';

/** The columns of `public.portal_payments` the payment tests read. */
export interface PaymentRow {
  status: string;
  reference: string;
  gateway_payment_id: string | null;
  recibo_id: string | null;
  recibo_error: string | null;
  refund_id: string | null;
  updated_at: Date | null;
}

export async function paymentRow(tenant: TestTenant, id: number): Promise<PaymentRow> {
  const [row] = await tenant.query<PaymentRow>(
    `SELECT status, reference, gateway_payment_id, recibo_id, recibo_error, refund_id, updated_at
       FROM public.portal_payments WHERE id = $1`,
    [id],
  );
  if (!row) throw new Error(`no payment ${id}`);
  return row;
}

/** The kinds of the payment's e-mails marked sent (`portal_payment_emails`), as rows. */
export function sentEmailKinds(tenant: TestTenant, paymentId: number) {
  return tenant.query<{ kind: string }>(
    `SELECT kind FROM public.portal_payment_emails WHERE payment_id = $1 AND sent_at IS NOT NULL`,
    [paymentId],
  );
}

/**
 * A tenant's `ini` keys to take gateway notifications with `webhookToken` and write each
 * approval's receipt (REC, recfac, movimi in the fixture's `caja` schema) to `cuentaBancaria`.
 */
export function receiptIni(webhookToken: string, cuentaBancaria: string): Record<string, string> {
  return {
    'portal.webhook_token': webhookToken,
    'portal.recibo.cuenta_bancaria': cuentaBancaria,
    'portal.recibo.caja_schema': 'caja',
  };
}

/** Ana's (cnro 1, suc0001) oldest pending debt, the only one iniciar may take alone (FIFO). */
async function oldestDebtRow(tenant: TestTenant): Promise<{ id: string; debe: string }> {
  const [row] = await tenant.query<{ id: string; debe: string }>(
    `SELECT id::text, debe::text FROM suc0001.ordcta WHERE cnro = 1 AND tipo = 'FAC' AND saldo > 0
      ORDER BY vencimiento LIMIT 1`,
  );
  if (!row) throw new Error('no pending debt');
  return row;
}

export async function oldestDebt(tenant: TestTenant): Promise<string> {
  return (await oldestDebtRow(tenant)).id;
}

/** Starts paying Ana's oldest pending debt in full (iniciar answers 200); answers the payment id. */
export async function startOldestDebtPayment(
  app: FastifyInstance,
  tenant: TestTenant,
  token: string,
): Promise<number> {
  const debt = await oldestDebtRow(tenant);
  const response = await app.inject({
    method: 'POST',
    url: '/portal/pagos/iniciar',
    headers: { ...bearer(token), origin: ORIGIN },
    payload: { facturas: [{ id: debt.id, monto: debt.debe }], total: debt.debe },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { payment_id: number } }>().data.payment_id;
}

/** A suc0001 debt's saldo as PostgreSQL prints it ('400.40'). */
export async function balanceOf(tenant: TestTenant, debtId: string): Promise<string> {
  const [row] = await tenant.query<{ saldo: string }>(
    'SELECT saldo::text FROM suc0001.ordcta WHERE id = $1',
    [debtId],
  );
  return row?.saldo ?? '';
}

/** Receipts, voided receipts and cash movements out: what an approval or a refund writes. */
export async function ledgerOf(tenant: TestTenant) {
  const [row] = await tenant.query<{ recibos: number; anulados: number; egresos: number }>(
    `SELECT (SELECT count(*)::int FROM suc0001.ordcta WHERE tipo = 'REC') AS recibos,
            (SELECT count(*)::int FROM suc0001.ordcta WHERE tipo = 'REC' AND anulado) AS anulados,
            (SELECT count(*)::int FROM caja.movimi WHERE tipo = 'EGRESO') AS egresos`,
  );
  if (!row) throw new Error('no ledger');
  return row;
}
