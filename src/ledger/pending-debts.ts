import { sql, type ExpressionBuilder } from 'kysely';
import type { TenantDatabase } from '../platform/db/types.js';

/** Ledger row types that are debts of the customer (DESIGN.md: invoices and debit notes). */
export const DEBT_TYPES = ['FAC', 'ND'] as const;

/**
 * A pending debt: an invoice or debit note with a balance left, not voided. The same predicate
 * serves the debts list, the account summary and the payment FIFO rule, so they always agree.
 */
export function isPendingDebt(eb: ExpressionBuilder<{ o: TenantDatabase['ordcta'] }, 'o'>) {
  return eb.and([
    eb('o.tipo', 'in', DEBT_TYPES),
    eb('o.saldo', '>', '0'),
    eb('o.anulado', '=', false),
  ]);
}

/** The order in which debts must be paid (SPEC.md FIFO rule): due date, undated last. */
export const FIFO_ORDER = [
  sql`o.vencimiento ASC NULLS LAST`,
  sql`o.fecha ASC`,
  sql`o.nrocomp ASC`,
] as const;
