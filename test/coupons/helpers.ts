import type { FastifyInstance } from 'fastify';
import type { TestTenant } from '../helpers/harness.js';
import { bearer } from '../helpers/auth.js';

export interface DebtSpec {
  nrocomp: string;
  saldo: string;
  tipo?: 'FAC' | 'ND' | 'NC' | 'REC';
  comprobante?: string;
  vencimiento?: string | null;
  anulado?: boolean;
}

/** Ledger rows of a customer in a customer-data schema; answers their ids in order. */
export async function seedDebts(
  tenant: TestTenant,
  schema: string,
  cnro: number,
  debts: DebtSpec[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const debt of debts) {
    const [row] = await tenant.query<{ id: string }>(
      `INSERT INTO ${schema}.ordcta
         (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo, anulado)
       VALUES ($1, $2, $3, $4, '2026-10-01', $5, $6, $6, $7) RETURNING id`,
      [
        cnro,
        debt.tipo ?? 'FAC',
        debt.comprobante ?? 'Factura B',
        debt.nrocomp,
        debt.vencimiento === undefined ? '2026-11-01' : debt.vencimiento,
        debt.saldo,
        debt.anulado ?? false,
      ],
    );
    if (!row) throw new Error('debt not inserted');
    ids.push(row.id);
  }
  return ids;
}

export interface GeneratedCoupon {
  cupon_id: string;
  codigo_barras: string;
  monto: number;
  fecha_vencimiento: string;
  facturas: { id: string; tipo: string; numero: string; monto: number }[];
}

export function generate(app: FastifyInstance, token: string, body: unknown) {
  return app.inject({
    method: 'POST',
    url: '/portal/cupones/generar',
    headers: bearer(token),
    payload: body as object,
  });
}

export async function generateOk(
  app: FastifyInstance,
  token: string,
  body: unknown,
): Promise<GeneratedCoupon> {
  const response = await generate(app, token, body);
  if (response.statusCode !== 200) throw new Error(`generar failed: ${response.body}`);
  return response.json<{ data: GeneratedCoupon }>().data;
}

export function get(app: FastifyInstance, token: string, url: string) {
  return app.inject({ method: 'GET', url, headers: bearer(token) });
}
