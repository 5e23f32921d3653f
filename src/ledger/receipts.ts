import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../platform/clock.js';
import type { PaymentFactura, TenantDatabase } from '../platform/db/types.js';
import { numericToCents, centsToNumeric } from '../platform/money.js';
import type { TenantContext } from '../platform/tenancy/tenancy.js';

export interface ReceiptSettings {
  cuentaBancaria: string;
  cajaSchema: string;
  puntoVenta: number;
}

export type ReceiptOutcome =
  | { kind: 'created'; reciboId: string; nrocomp: string }
  | { kind: 'exists'; reciboId: string }
  | { kind: 'not_approved' }
  /** The gateway approved something else than the payment: no receipt, ever, without a person. */
  | { kind: 'refused'; reason: string };

/**
 * docs/decisions.md #30: a receipt is written only for exactly what the customer owed, in its currency.
 * The reason a payment can never get one automatically, or undefined when it can. The approval
 * is what TX1 recorded the gateway approved (`portal_payment_approvals`), if anything.
 */
export function receiptRefusal(payment: {
  monto: string | null;
  currency: string | null;
  approved_amount: string | null;
  approved_currency: string | null;
}): string | undefined {
  const { approved_amount: amount, approved_currency: approvedCurrency } = payment;
  if (amount === null || approvedCurrency === null) {
    return 'No se registró el importe que aprobó la pasarela';
  }
  const currency = payment.currency ?? 'ARS';
  if (
    payment.monto === null ||
    numericToCents(amount) !== numericToCents(payment.monto) ||
    approvedCurrency.toUpperCase() !== currency.toUpperCase()
  ) {
    return `Importe aprobado ${amount} ${approvedCurrency} distinto del monto del pago ${payment.monto ?? '?'} ${currency}`;
  }
  return undefined;
}

/**
 * Payments (`p`) with what their gateway approved beside them (`a`): the columns
 * `receiptRefusal` reads, for the receipt writer and the in-flight rule to add to.
 */
export function paymentsWithApprovals(db: Kysely<TenantDatabase>) {
  return db
    .withSchema('public')
    .selectFrom('portal_payments as p')
    .leftJoin('portal_payment_approvals as a', 'a.payment_id', 'p.id')
    .select([
      'p.id',
      'p.status',
      'p.monto',
      'p.currency',
      'p.facturas_json',
      'a.amount as approved_amount',
      'a.currency as approved_currency',
    ]);
}

/** A ledger that no longer matches the payment: money received, receipt needs a person. */
export class LedgerConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerConflictError';
  }
}

type Trx = Transaction<TenantDatabase>;

/** `RC` + punto de venta (4) + `-` + number (8), allocated under the numerador's row lock. */
async function nextReceiptNumber(trx: Trx, schema: string, puntoVenta: number): Promise<string> {
  const row = await trx
    .withSchema(schema)
    .insertInto('numeradores')
    .values({ tipo: 'REC', punto_venta: puntoVenta, ultimo: 1 })
    .onConflict((oc) =>
      oc
        .columns(['tipo', 'punto_venta'])
        .doUpdateSet({ ultimo: sql<number>`numeradores.ultimo + 1` }),
    )
    .returning('ultimo')
    .executeTakeFirstOrThrow();
  return `RC${String(puntoVenta).padStart(4, '0')}-${String(row.ultimo).padStart(8, '0')}`;
}

/**
 * TX2 (docs/erp.md "TX2: the receipt of an approved payment"): in one transaction, the REC row in ordcta, one recfac per paid debt,
 * each debt's saldo and debe reduced, the movimi INGRESO in the cash schema, then recibo_id and
 * recibo_at on the payment. The payment row is locked first, so concurrent or repeated runs
 * create one receipt: the second finds recibo_id set.
 */
export async function createReceipt(
  tenant: TenantContext,
  paymentId: number,
  settings: ReceiptSettings,
  deps: { clock: Clock; today: string },
): Promise<ReceiptOutcome> {
  return tenant.db.transaction().execute(async (trx) => {
    const payment = await paymentsWithApprovals(trx)
      .select(['p.sucursal_id', 'p.recibo_id', 'p.ordcon_id', 'p.gateway', 'p.gateway_payment_id'])
      .where('p.id', '=', paymentId)
      .forUpdate('p')
      .executeTakeFirstOrThrow();
    if (payment.recibo_id) return { kind: 'exists', reciboId: payment.recibo_id };
    if (payment.status !== 'approved') return { kind: 'not_approved' };
    if (payment.sucursal_id !== tenant.sucursalId) {
      // The debts and the receipt live in the payment's own sucursal's schema, never another's.
      throw new LedgerConflictError(
        `El pago es de la sucursal ${payment.sucursal_id}, no de la ${tenant.sucursalId}`,
      );
    }
    const refusal = receiptRefusal(payment);
    if (refusal !== undefined) return { kind: 'refused', reason: refusal };
    if (payment.ordcon_id === null || payment.monto === null) {
      throw new LedgerConflictError('El pago no tiene cliente o monto');
    }

    const schema = tenant.customerSchema;
    const cnro = payment.ordcon_id;
    const totalCents = numericToCents(payment.monto);
    const facturas: PaymentFactura[] = payment.facturas_json;
    const nrocomp = await nextReceiptNumber(trx, schema, settings.puntoVenta);
    const reciboId = randomUUID();
    const now = deps.clock.now();

    const paid = facturas.map((factura) => ({
      factura,
      pago: centsToNumeric(Math.round(Number(factura.pago) * 100)),
    }));
    // Every debt in one statement; one it could not reduce (voided, or less saldo than paid in
    // the ERP meanwhile) is missing from the answer and stops the whole receipt.
    const { rows: reduced } = await sql<{ id: string }>`
      UPDATE ${sql.table(`${schema}.ordcta`)} o
         SET saldo = o.saldo - v.pago, debe = o.debe - v.pago
        FROM (VALUES ${sql.join(paid.map(({ factura, pago }) => sql`(${factura.id}::uuid, ${pago}::numeric)`))})
             AS v(id, pago)
       WHERE o.id = v.id AND o.cnro = ${cnro} AND NOT o.anulado AND o.saldo >= v.pago
      RETURNING o.id
    `.execute(trx);
    const done = new Set(reduced.map((row) => row.id));
    const changed = paid.find(({ factura }) => !done.has(factura.id.toLowerCase()));
    if (changed) {
      throw new LedgerConflictError(
        `La factura ${changed.factura.numero} cambió en el ERP (anulada o con saldo menor a ${changed.pago})`,
      );
    }
    await trx
      .withSchema(schema)
      .insertInto('ordcta')
      .values({
        id: reciboId,
        cnro,
        tipo: 'REC',
        comprobante: 'Recibo',
        nrocomp,
        fecha: deps.today,
        vencimiento: null,
        debe: '0',
        haber: centsToNumeric(totalCents),
        saldo: '0',
      })
      .execute();
    await trx
      .withSchema(schema)
      .insertInto('recfac')
      .values(
        paid.map(({ factura, pago }) => ({
          recibo_id: reciboId,
          factura_id: factura.id,
          monto: pago,
        })),
      )
      .execute();
    await trx
      .withSchema(settings.cajaSchema)
      .insertInto('movimi')
      .values({
        fecha: now,
        tipo: 'INGRESO',
        cuenta_bancaria: settings.cuentaBancaria,
        monto: centsToNumeric(totalCents),
        concepto: `Pago portal #${payment.id} (${payment.gateway ?? ''} ${payment.gateway_payment_id ?? ''}) recibo ${nrocomp}`,
        ordcta_id: reciboId,
        cnro,
      })
      .execute();
    await trx
      .withSchema('public')
      .updateTable('portal_payments')
      .set({ recibo_id: reciboId, recibo_at: now, recibo_error: null, updated_at: now })
      .where('id', '=', payment.id)
      .execute();
    return { kind: 'created', reciboId, nrocomp };
  });
}

/**
 * docs/decisions.md #37, inside the refund's transaction: the receipt is voided, each paid debt gets back
 * what the receipt applied to it (recfac), and an EGRESO leaves the cash account.
 */
export async function reverseReceipt(
  trx: Trx,
  tenant: TenantContext,
  reciboId: string,
  settings: Pick<ReceiptSettings, 'cuentaBancaria' | 'cajaSchema'>,
  context: { paymentId: number; now: Date },
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
      concepto: `Devolución pago portal #${context.paymentId}, recibo ${receipt.nrocomp} anulado`,
      ordcta_id: reciboId,
      cnro: receipt.cnro,
    })
    .execute();
}
