import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { childEnv, runNode } from '../helpers/processes.js';

const env = useTestEnvironment();
let tenant: TestTenant;
let processEnv: NodeJS.ProcessEnv;

/** An approved payment of 150.25 for `debtId` whose TX2 failed; the gateway approved `approved`. */
async function approvedWithoutReceipt(debtId: string, approved: string): Promise<number> {
  const [payment] = await tenant.query<{ id: number }>(
    `INSERT INTO public.portal_payments
       (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, monto, status, facturas_json,
        reference, approved_at, recibo_error)
     VALUES (gen_random_uuid(), 1, 5, 1, 'sandbox', 150.25, 'approved', $1, gen_random_uuid(), now(),
        'relation "caja.movimi" does not exist')
     RETURNING id`,
    [
      JSON.stringify([
        {
          id: debtId,
          tipo: 'Factura B',
          numero: '0001-00000001',
          monto: 150.25,
          pago: 150.25,
          saldo: 0,
        },
      ]),
    ],
  );
  if (!payment) throw new Error('no payment');
  await tenant.query(
    `INSERT INTO public.portal_payment_approvals (payment_id, amount, currency) VALUES ($1, $2, 'ARS')`,
    [payment.id, approved],
  );
  return payment.id;
}

beforeAll(async () => {
  tenant = await env.addTenant({
    id: 5,
    sucursales: [{ id: 1 }],
    ini: { 'portal.recibo.cuenta_bancaria': 'Banco CLI', 'portal.recibo.caja_schema': 'caja' },
  });
  await tenant.query(`INSERT INTO suc0001.ordcon VALUES (1, 'Ana', '30111222')`);
  const [debt] = await tenant.query<{ id: string }>(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', '0001-00000001', '2026-01-01', 150.25, 150.25) RETURNING id`,
  );
  // As TX1 leaves them: approved, the gateway's approved amount beside, TX2 failed.
  await approvedWithoutReceipt(debt?.id ?? '', '150.25');
  processEnv = childEnv({
    DATABASE_URL: env.systemUrl,
    PORTAL_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'portal-retry-')),
  });
});

describe('cli payments retry-receipts', () => {
  it('creates the missing receipt once and queues its e-mail; a second run finds nothing to do', async () => {
    const first = await runNode(
      'src/cli.ts',
      ['payments', 'retry-receipts', '--tenant', '5'],
      processEnv,
    );
    expect(first.code, first.output).toBe(0);
    expect(first.output).toMatch(/tenant 5 payment \d+: receipt RC0001-00000001/);
    const [payment] = await tenant.query<{
      id: number;
      recibo_id: string | null;
      recibo_error: string | null;
    }>('SELECT id, recibo_id, recibo_error FROM public.portal_payments');
    expect(payment?.recibo_id).toEqual(expect.any(String));
    expect(payment?.recibo_error).toBeNull();
    // "Recibimos tu pago" is queued for the API's workers to send (docs/payments.md).
    const emails = await env.systemQuery<{ data: { paymentId: number; kind: string } }>(
      `SELECT data FROM pgboss.job WHERE name = 'payments.email'`,
    );
    expect(emails.map((job) => job.data)).toEqual([
      expect.objectContaining({ tenantId: 5, paymentId: payment?.id, kind: 'pago_recibido' }),
    ]);
    expect(await tenant.query(`SELECT saldo FROM suc0001.ordcta WHERE tipo = 'FAC'`)).toEqual([
      { saldo: '0.00' },
    ]);
    expect(await tenant.query(`SELECT monto FROM caja.movimi`)).toEqual([{ monto: '150.25' }]);

    const second = await runNode('src/cli.ts', ['payments', 'retry-receipts'], processEnv);
    expect(second.code, second.output).toBe(0);
    expect(second.output).toContain('no approved payment is missing its receipt');
    expect(await tenant.query(`SELECT 1 FROM suc0001.ordcta WHERE tipo = 'REC'`)).toHaveLength(1);
  }, 60_000);

  it('refuses an underpaid approval as the webhook would: no receipt, the reason in recibo_error', async () => {
    const [debt] = await tenant.query<{ id: string }>(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, debe, saldo)
       VALUES (1, 'FAC', 'Factura B', '0001-00000002', '2026-02-01', 150.25, 150.25) RETURNING id`,
    );
    const paymentId = await approvedWithoutReceipt(debt?.id ?? '', '100.00');
    const run = await runNode(
      'src/cli.ts',
      ['payments', 'retry-receipts', '--payment', String(paymentId)],
      processEnv,
    );
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`payment ${paymentId}: refused: Importe aprobado 100.00 ARS`);
    const [payment] = await tenant.query<{ recibo_id: string | null; recibo_error: string }>(
      'SELECT recibo_id, recibo_error FROM public.portal_payments WHERE id = $1',
      [paymentId],
    );
    expect(payment?.recibo_id).toBeNull();
    expect(payment?.recibo_error).toMatch(/^Importe aprobado 100.00 ARS distinto/);
    expect(await tenant.query(`SELECT 1 FROM suc0001.ordcta WHERE tipo = 'REC'`)).toHaveLength(1);
    expect(
      await tenant.query('SELECT saldo::text FROM suc0001.ordcta WHERE id = $1', [debt?.id]),
    ).toEqual([{ saldo: '150.25' }]);
  }, 60_000);
});
