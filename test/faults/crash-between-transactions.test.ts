import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  mercadoPagoDelivery,
  registerAndLogin,
  startPayment,
} from '../helpers/api-client.js';
import { FakeMercadoPago } from '../helpers/fake-gateways.js';
import type { TestTenant } from '../helpers/harness.js';
import { startOwnClusterTenant, until, type OwnClusterTenant } from '../helpers/own-cluster.js';
import { paymentRow, receiptIni } from '../helpers/payments.js';

/*
 * The API dies (SIGKILL) after TX1 committed an approval and before TX2 wrote its receipt. The
 * test holds TX2 still without a hook in our code: an open transaction of its own keeps
 * suc0001.numeradores locked (ACCESS EXCLUSIVE), a table TX2 writes (in its last statement) and TX1 never
 * touches, so TX1 commits and TX2 waits on the lock until the process is killed.
 */

const TOKEN = 'crash-webhook-token';
const NOTIFY = `tenant_id=1&sucursal_id=1&token=${TOKEN}`;

let world: OwnClusterTenant;
let tenant: TestTenant;
const mp = new FakeMercadoPago();

async function ledger() {
  const [row] = await tenant.query<{ recibos: number; recfac: number; ingresos: number }>(
    `SELECT (SELECT count(*)::int FROM suc0001.ordcta WHERE tipo = 'REC') AS recibos,
            (SELECT count(*)::int FROM suc0001.recfac) AS recfac,
            (SELECT count(*)::int FROM caja.movimi WHERE tipo = 'INGRESO') AS ingresos`,
  );
  return row;
}

beforeAll(async () => {
  world = await startOwnClusterTenant(mp, receiptIni(TOKEN, 'Banco Seguro CC 1'));
  tenant = world.tenant;
});

afterAll(async () => {
  await world?.close();
});

describe('the API killed between TX1 and TX2 of an approval', () => {
  it('the restarted API writes the receipt once: one REC, one recfac, one movimi; a replayed webhook adds nothing', async () => {
    const [debt] = await tenant.query<{ id: string }>(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       VALUES (1, 'FAC', 'Factura B', '0009-00000001', '2026-01-01', '2026-01-10', 750.25, 750.25)
       RETURNING id::text`,
    );
    const first = await world.startApi();
    const token = await registerAndLogin(first.url);
    const paymentId = await startPayment(first.url, token, [{ id: debt?.id ?? '', monto: 750.25 }]);
    const { reference } = await paymentRow(tenant, paymentId);
    const mpId = mp.addPayment({
      status: 'approved',
      transaction_amount: 750.25,
      external_reference: reference,
    });
    const deliver = mercadoPagoDelivery(NOTIFY, mpId);

    const blocker = new pg.Client({ connectionString: tenant.databaseUrl });
    await blocker.connect();
    let waitingBackend: number;
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE suc0001.numeradores IN ACCESS EXCLUSIVE MODE');
      // The gateway never gets an answer: the process dies while TX2 waits.
      const unanswered = deliver(first.url, 60_000).then(
        (answer) => answer,
        (error: unknown) => error,
      );
      waitingBackend = await until('TX2 waiting on the lock after TX1 committed', async () => {
        const row = await paymentRow(tenant, paymentId);
        if (row.status !== 'approved' || row.recibo_id !== null) return undefined;
        const [waiting] = await tenant.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'portal-tenant'
              AND wait_event_type = 'Lock'`,
        );
        return waiting?.pid;
      });
      first.process.child.kill('SIGKILL');
      await first.process.exited();
      expect(await unanswered).toBeInstanceOf(Error);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
    }
    // Its backend gets the lock, finds its client gone and rolls TX2 back.
    await until('the killed process backend to end', async () => {
      const rows = await tenant.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [
        waitingBackend,
      ]);
      return rows.length === 0 ? true : undefined;
    });
    expect(await paymentRow(tenant, paymentId)).toMatchObject({
      status: 'approved',
      recibo_id: null,
      recibo_error: null,
    });
    expect(await ledger()).toEqual({ recibos: 0, recfac: 0, ingresos: 0 });

    // A new process, nobody notifying it of anything: the job queue holds the pending receipt.
    const second = await world.startApi();
    const reciboId = await until(
      'the receipt written after the restart',
      async () => (await paymentRow(tenant, paymentId)).recibo_id ?? undefined,
      45_000,
      250,
    );
    expect(await ledger()).toEqual({ recibos: 1, recfac: 1, ingresos: 1 });
    const [recibo] = await tenant.query<{ id: string; haber: string }>(
      `SELECT id::text, haber::text FROM suc0001.ordcta WHERE tipo = 'REC'`,
    );
    expect(recibo).toEqual({ id: reciboId, haber: '750.25' });
    const [movimi] = await tenant.query<{ monto: string; ordcta_id: string }>(
      `SELECT monto::text, ordcta_id::text FROM caja.movimi`,
    );
    expect(movimi).toEqual({ monto: '750.25', ordcta_id: reciboId });
    const [paid] = await tenant.query<{ saldo: string }>(
      'SELECT saldo::text FROM suc0001.ordcta WHERE id = $1',
      [debt?.id],
    );
    expect(paid?.saldo).toBe('0.00');
    const [stamps] = await tenant.query<{ recibo_at: Date | null; recibo_error: string | null }>(
      'SELECT recibo_at, recibo_error FROM public.portal_payments WHERE id = $1',
      [paymentId],
    );
    expect(stamps?.recibo_at).toBeInstanceOf(Date);
    expect(stamps?.recibo_error).toBeNull();

    // The gateway retries the unanswered notification, and sends a fresh one: nothing more.
    expect((await deliver(second.url)).status).toBe(200);
    expect((await mercadoPagoDelivery(NOTIFY, mpId)(second.url)).status).toBe(200);
    expect(await ledger()).toEqual({ recibos: 1, recfac: 1, ingresos: 1 });
    expect((await paymentRow(tenant, paymentId)).recibo_id).toBe(reciboId);
    // The token of the killed process still serves: sessions live in the database.
    const deudas = await call(second.url, 'GET', '/portal/deudas', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(deudas).toMatchObject({ status: 200, body: { success: true } });
  });
});
