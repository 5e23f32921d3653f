import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestEnvironment,
  type TestEnvironment,
  type TestTenant,
} from '../helpers/harness.js';
import { childEnv, runTsx } from '../helpers/processes.js';

let env: TestEnvironment;
let tenant: TestTenant;
let processEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  env = await createTestEnvironment();
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
  await tenant.query(
    `INSERT INTO public.portal_payments
       (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, monto, status, facturas_json,
        reference, approved_at, recibo_error)
     VALUES (gen_random_uuid(), 1, 5, 1, 'sandbox', 150.25, 'approved', $1, gen_random_uuid(), now(),
        'relation "caja.movimi" does not exist')`,
    [
      JSON.stringify([
        {
          id: debt?.id,
          tipo: 'Factura B',
          numero: '0001-00000001',
          monto: 150.25,
          pago: 150.25,
          saldo: 0,
        },
      ]),
    ],
  );
  processEnv = childEnv({
    DATABASE_URL: env.systemUrl,
    PORTAL_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'portal-retry-')),
  });
});

afterAll(async () => {
  await env.close();
});

describe('cli payments retry-receipts', () => {
  it('creates the missing receipt once; a second run finds nothing to do', async () => {
    const first = await runTsx(
      'src/cli.ts',
      ['payments', 'retry-receipts', '--tenant', '5'],
      processEnv,
    );
    expect(first.code, first.output).toBe(0);
    expect(first.output).toMatch(/tenant 5 payment \d+: receipt RC0001-00000001/);
    const [payment] = await tenant.query<{ recibo_id: string | null; recibo_error: string | null }>(
      'SELECT recibo_id, recibo_error FROM public.portal_payments',
    );
    expect(payment?.recibo_id).toEqual(expect.any(String));
    expect(payment?.recibo_error).toBeNull();
    expect(await tenant.query(`SELECT saldo FROM suc0001.ordcta WHERE tipo = 'FAC'`)).toEqual([
      { saldo: '0.00' },
    ]);
    expect(await tenant.query(`SELECT monto FROM caja.movimi`)).toEqual([{ monto: '150.25' }]);

    const second = await runTsx('src/cli.ts', ['payments', 'retry-receipts'], processEnv);
    expect(second.code, second.output).toBe(0);
    expect(second.output).toContain('no approved payment is missing its receipt');
    expect(await tenant.query(`SELECT 1 FROM suc0001.ordcta WHERE tipo = 'REC'`)).toHaveLength(1);
  }, 60_000);
});
