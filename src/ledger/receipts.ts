import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { TenantDatabase } from '../platform/db/types.js';
import { numericToCents, centsToNumeric } from '../platform/money.js';
import type { TenantContext } from '../platform/tenancy/tenancy.js';

export interface ReceiptSettings {
  cuentaBancaria: string;
  cajaSchema: string;
  puntoVenta: number;
}

/** A ledger that no longer matches the payment: money received, receipt needs a person. */
export class LedgerConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerConflictError';
  }
}

type Trx = Transaction<TenantDatabase>;

/**
 * The receipt's number as SQL: `RC` + punto de venta (4) + `-` + the numerador's `ultimo` (at
 * least 8 digits; lpad alone would cut a longer one).
 */
function receiptNumber(puntoVenta: number) {
  const prefix = `RC${String(puntoVenta).padStart(4, '0')}-`;
  return sql<string>`${prefix}::text || lpad(ultimo::text, greatest(8, length(ultimo::text)), '0')`;
}

/** One debt a receipt pays, and how much of it (a JSON number, 2 decimals). */
export interface PaidDebt {
  id: string;
  numero: string;
  pago: number;
}

/** What the ledger needs of a portal payment to write its receipt. */
export interface ReceiptPayment {
  /** The portal's payment id, named in the cash movement's concepto. */
  id: number;
  cnro: number;
  /** The total, a NUMERIC string. */
  monto: string;
  facturas: readonly PaidDebt[];
  gateway: string | null;
  gatewayPaymentId: string | null;
  /**
   * The cash movement's concepto before the receipt's number; a portal payment's by default. A
   * transfer names its credit (docs/transfers.md).
   */
  concepto?: string;
}

/**
 * The ledger's part of TX2 (docs/erp.md "TX2: the receipt of an approved payment"), inside the
 * caller's transaction: the REC row in ordcta, one recfac per paid debt, each debt's saldo and
 * debe reduced, the movimi INGRESO in the cash schema. A debt that changed in the ERP meanwhile
 * stops the whole receipt (LedgerConflictError).
 *
 * The numerador's row lock serialises every receipt of the tenant's punto de venta until the
 * commit, so everything that needs no number comes before it: the debts reduced, and
 * `beforeNumbering` (the caller's own writes, given the receipt's id). Then one statement takes
 * the number and writes the REC row, its recfac lines and the cash movement, and the commit.
 */
export async function writeReceipt(
  trx: Trx,
  tenant: Pick<TenantContext, 'customerSchema'>,
  payment: ReceiptPayment,
  settings: ReceiptSettings,
  context: {
    now: Date;
    today: string;
    /**
     * Given the receipt's id and each paid debt's `saldo` after it (lower-case id -> NUMERIC
     * string): what is left of a debt paid in part, as the ledger holds it (docs/decisions.md #48).
     */
    beforeNumbering?:
      ((reciboId: string, saldos: ReadonlyMap<string, string>) => Promise<void>) | undefined;
  },
): Promise<{ reciboId: string; nrocomp: string }> {
  const schema = tenant.customerSchema;
  const { cnro } = payment;
  const total = centsToNumeric(numericToCents(payment.monto));
  const reciboId = randomUUID();

  const paid = payment.facturas.map((factura) => ({
    factura,
    pago: centsToNumeric(Math.round(Number(factura.pago) * 100)),
  }));
  // What no debt takes stays in the receipt's saldo, the customer's credit (docs/decisions.md
  // #48): a transfer larger than the debts, or one that arrived with none. A portal payment
  // applies its whole total, so its saldo is 0.
  const applied = paid.reduce((sum, { pago }) => sum + numericToCents(pago), 0);
  const saldo = centsToNumeric(numericToCents(total) - applied);
  if (numericToCents(saldo) < 0) throw new Error('a receipt cannot apply more than its total');
  // Every debt in one statement; one it could not reduce (voided, or less saldo than paid in
  // the ERP meanwhile) is missing from the answer and stops the whole receipt.
  const { rows: reduced } =
    paid.length === 0
      ? { rows: [] }
      : await sql<{ id: string; saldo: string }>`
    UPDATE ${sql.table(`${schema}.ordcta`)} o
       SET saldo = o.saldo - v.pago, debe = o.debe - v.pago
      FROM (VALUES ${sql.join(paid.map(({ factura, pago }) => sql`(${factura.id}::uuid, ${pago}::numeric)`))})
           AS v(id, pago)
     WHERE o.id = v.id AND o.cnro = ${cnro} AND NOT o.anulado AND o.saldo >= v.pago
    RETURNING o.id, o.saldo::text AS saldo
  `.execute(trx);
  const done = new Set(reduced.map((row) => row.id));
  const changed = paid.find(({ factura }) => !done.has(factura.id.toLowerCase()));
  if (changed) {
    throw new LedgerConflictError(
      `La factura ${changed.factura.numero} cambió en el ERP (anulada o con saldo menor a ${changed.pago})`,
    );
  }
  await context.beforeNumbering?.(
    reciboId,
    new Map(reduced.map((row) => [row.id.toLowerCase(), row.saldo])),
  );

  // The number and every row that carries it in one statement, then the commit: the numerador's
  // row lock is held for two round trips, not three, and no event-loop turn of this process in
  // between (a busy process made every receipt of the tenant wait for its turns).
  const concepto =
    payment.concepto ??
    `Pago portal #${payment.id} (${payment.gateway ?? ''} ${payment.gatewayPaymentId ?? ''}) recibo `;
  const lines =
    paid.length === 0
      ? sql`SELECT NULL::uuid AS factura_id, NULL::numeric AS monto WHERE false`
      : sql`VALUES ${sql.join(paid.map(({ factura, pago }) => sql`(${factura.id}::uuid, ${pago}::numeric)`))}`;
  const { rows } = await sql<{ nrocomp: string }>`
    WITH numbered AS (
      INSERT INTO ${sql.table(`${schema}.numeradores`)} (tipo, punto_venta, ultimo)
      VALUES ('REC', ${settings.puntoVenta}::integer, 1)
      ON CONFLICT (tipo, punto_venta) DO UPDATE SET ultimo = numeradores.ultimo + 1
      RETURNING ${receiptNumber(settings.puntoVenta)} AS nrocomp
    ), receipt AS (
      INSERT INTO ${sql.table(`${schema}.ordcta`)}
             (id, cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, haber, saldo)
      SELECT ${reciboId}::uuid, ${cnro}::integer, 'REC', 'Recibo', numbered.nrocomp,
             ${context.today}::date, NULL, 0, ${total}::numeric, ${saldo}::numeric
        FROM numbered
      RETURNING id, nrocomp
    ), applied AS (
      INSERT INTO ${sql.table(`${schema}.recfac`)} (recibo_id, factura_id, monto)
      SELECT receipt.id, v.factura_id, v.monto
        FROM receipt, (${lines}) AS v(factura_id, monto)
    ), moved AS (
      INSERT INTO ${sql.table(`${settings.cajaSchema}.movimi`)}
             (fecha, tipo, cuenta_bancaria, monto, concepto, ordcta_id, cnro)
      SELECT ${context.now}::timestamptz, 'INGRESO', ${settings.cuentaBancaria}::text,
             ${total}::numeric, ${concepto}::text || receipt.nrocomp, receipt.id, ${cnro}::integer
        FROM receipt
    )
    SELECT nrocomp FROM receipt
  `.execute(trx);
  const nrocomp = rows[0]?.nrocomp;
  if (nrocomp === undefined) throw new Error('the receipt was not written');
  return { reciboId, nrocomp };
}

/**
 * docs/decisions.md #37, inside the refund's transaction: the receipt is voided, each paid debt gets back
 * what the receipt applied to it (recfac), and an EGRESO leaves the cash account.
 */
export async function reverseReceipt(
  trx: Trx,
  tenant: Pick<TenantContext, 'customerSchema'>,
  reciboId: string,
  settings: Pick<ReceiptSettings, 'cuentaBancaria' | 'cajaSchema'>,
  /** `concepto`: the EGRESO's, given the voided receipt's number. */
  context: { now: Date; concepto: (nrocomp: string) => string },
): Promise<void> {
  const schema = tenant.customerSchema;
  const receipt = await trx
    .withSchema(schema)
    .updateTable('ordcta')
    .set({ anulado: true })
    .where('id', '=', reciboId)
    .where('tipo', '=', 'REC')
    .where('anulado', '=', false)
    .returning(['cnro', 'haber', 'nrocomp'])
    .executeTakeFirst();
  if (!receipt) throw new LedgerConflictError(`El recibo ${reciboId} no existe o ya está anulado`);
  // Each paid debt gets back what this receipt applied to it, in one statement.
  await sql`
    UPDATE ${sql.table(`${schema}.ordcta`)} o
       SET saldo = o.saldo + l.monto, debe = o.debe + l.monto
      FROM ${sql.table(`${schema}.recfac`)} l
     WHERE l.recibo_id = ${reciboId}::uuid AND o.id = l.factura_id
  `.execute(trx);
  await trx
    .withSchema(settings.cajaSchema)
    .insertInto('movimi')
    .values({
      fecha: context.now,
      tipo: 'EGRESO',
      cuenta_bancaria: settings.cuentaBancaria,
      monto: receipt.haber,
      concepto: context.concepto(receipt.nrocomp),
      ordcta_id: reciboId,
      cnro: receipt.cnro,
    })
    .execute();
}
