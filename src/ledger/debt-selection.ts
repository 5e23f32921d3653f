import { AppError, type ErrorCode } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { centsToNumeric, MAX_NUMERIC_CENTS, requestCents } from '../platform/money.js';
import type { PayableDebt } from './pending-debts.js';

/** Debts and amounts as a request sends them: amounts are JSON numbers or numeric strings. */
export interface SelectionRequest {
  facturas: readonly { id: string; monto: unknown }[];
  total: unknown;
}

/** What differs between the two kinds of selection: a payment's and a coupon's. */
export interface SelectionRules {
  /** The ids must be exactly the first K debts of the list given (in FIFO order). */
  fifo: boolean;
  /** Each amount must be the debt's whole `debe`; otherwise any amount up to its `saldo`. */
  fullAmounts: boolean;
  /**
   * With full amounts, the last selected debt in FIFO order may be paid in part: more than zero,
   * at most its `debe`, and, when less, at least `minimumCents` (docs/decisions.md #48).
   */
  partialLast?: { minimumCents: number | undefined } | undefined;
  /** The error code of each kind of failure. */
  codes: {
    /** A debt that is not the customer's pending debt, repeated, or an amount out of range. */
    invalid: ErrorCode;
    /** An amount other than the debt's `debe` when full amounts are required. */
    partial: ErrorCode;
    /** A total (well formed) that is not the sum of the amounts. */
    total: ErrorCode;
    /** Ids that are not a FIFO prefix. */
    order: ErrorCode;
  };
}

/** docs/api.md's rules of POST /portal/pagos/iniciar: FIFO, full amounts, a code per failure. */
export const PAYMENT_SELECTION: SelectionRules = {
  fifo: true,
  fullAmounts: true,
  codes: {
    invalid: 'INVALID_FACTURAS',
    partial: 'PARTIAL_PAYMENT_NOT_ALLOWED',
    total: 'MONTO_MISMATCH',
    order: 'PAYMENT_ORDER_VIOLATION',
  },
};

/** docs/decisions.md #36: a coupon's debts in any order, partial amounts allowed, every failure 400. */
export const COUPON_SELECTION: SelectionRules = {
  fifo: false,
  fullAmounts: false,
  codes: {
    invalid: 'INVALID_REQUEST',
    partial: 'INVALID_REQUEST',
    total: 'INVALID_REQUEST',
    order: 'INVALID_REQUEST',
  },
};

export interface SelectedDebt {
  debt: PayableDebt;
  /** What the selection pays of this debt. */
  cents: number;
}

export interface Selection {
  /** In the request's order. */
  debts: SelectedDebt[];
  totalCents: number;
}

/**
 * The rules a request breaks on its own, before any debt is read: at least one debt, each a
 * uuid once, each amount a cent figure above zero, the total their sum. Coupons run it first, so
 * that a malformed request is 400 before anything about the customer or the ledger is asked;
 * `decideSelection` checks the same again in the order payments need.
 */
export function checkSelectionRequest(request: SelectionRequest, rules: SelectionRules): void {
  const invalid = (message: string) => new AppError(rules.codes.invalid, message);
  if (request.facturas.length === 0) throw invalid('Seleccione al menos una factura');
  const seen = new Set<string>();
  let sum = 0;
  for (const factura of request.facturas) {
    const id = factura.id.toLowerCase();
    if (!isUuid(id))
      throw invalid(`La factura ${factura.id} no es una deuda pendiente del cliente`);
    if (seen.has(id)) throw invalid(`La factura ${factura.id} está repetida`);
    seen.add(id);
    const cents = requestCents(factura.monto);
    if (cents === undefined) {
      throw invalid(
        `El importe de la factura ${factura.id} no es un importe con hasta 2 decimales`,
      );
    }
    if (cents <= 0) throw invalid(`El importe de la factura ${factura.id} debe ser mayor que cero`);
    sum += cents;
  }
  checkTotal(request.total, sum, rules);
}

/** The total is a cent figure equal to the sum, itself within numeric(15,2). */
function checkTotal(total: unknown, sum: number, rules: SelectionRules): number {
  if (sum > MAX_NUMERIC_CENTS) {
    throw new AppError(rules.codes.invalid, 'La suma de los importes supera el máximo admitido');
  }
  const totalCents = requestCents(total);
  if (totalCents === undefined) {
    // A malformed total is a malformed request, not a different sum.
    throw new AppError(rules.codes.invalid, 'El total no es un importe con hasta 2 decimales');
  }
  if (totalCents !== sum) {
    throw new AppError(
      rules.codes.total,
      `El total (${centsToNumeric(totalCents)}) no es la suma de los importes (${centsToNumeric(sum)})`,
    );
  }
  return totalCents;
}

/** The selected debt that comes last in the customer's FIFO order (`debts`). */
function lastInFifoOrder(
  selected: readonly SelectedDebt[],
  debts: readonly PayableDebt[],
): PayableDebt | undefined {
  const position = new Map(debts.map((debt, index) => [debt, index]));
  let last: PayableDebt | undefined;
  for (const { debt } of selected) {
    if (last === undefined || (position.get(debt) ?? -1) > (position.get(last) ?? -1)) last = debt;
  }
  return last;
}

/**
 * The payment rules with the tenant's partial payments (docs/decisions.md #48): off, exactly the
 * specified ones.
 */
export function paymentSelection(partial: {
  enabled: boolean;
  minimumCents: number | undefined;
}): SelectionRules {
  if (!partial.enabled) return PAYMENT_SELECTION;
  return { ...PAYMENT_SELECTION, partialLast: { minimumCents: partial.minimumCents } };
}

/**
 * Decides a selection of debts against the customer's pending debts, in docs/api.md's order for
 * pagos/iniciar: 1. each debt is one of `debts` (the customer's pending ones), once; 2. each
 * amount is a cent figure above zero and at most the debt's saldo; 3. with full amounts, each
 * amount is the debt's debe; 4. the total is the sum; 5. with FIFO, the ids are the first K of
 * `debts` (order inside the request does not matter). Amounts are read as whole cents (at most 2
 * decimals, `requestCents`) and everything after is integer arithmetic.
 */
export function decideSelection(
  request: SelectionRequest,
  debts: readonly PayableDebt[],
  rules: SelectionRules,
): Selection {
  const { codes } = rules;
  const invalid = (message: string) => new AppError(codes.invalid, message);
  if (request.facturas.length === 0) throw invalid('Seleccione al menos una factura');

  const byId = new Map(debts.map((debt) => [debt.id.toLowerCase(), debt]));
  const seen = new Set<string>();
  const requested: { debt: PayableDebt; cents: number | undefined }[] = [];
  for (const factura of request.facturas) {
    const id = factura.id.toLowerCase();
    const debt = isUuid(id) ? byId.get(id) : undefined;
    if (!debt) throw invalid(`La factura ${factura.id} no es una deuda pendiente del cliente`);
    if (seen.has(id)) throw invalid(`La factura ${factura.id} está repetida`);
    seen.add(id);
    requested.push({ debt, cents: requestCents(factura.monto) });
  }

  const selected: SelectedDebt[] = [];
  for (const { debt, cents } of requested) {
    if (cents === undefined) {
      throw invalid(`El importe de ${debt.nrocomp} no es un importe con hasta 2 decimales`);
    }
    if (cents <= 0) throw invalid(`El importe de ${debt.nrocomp} debe ser mayor que cero`);
    if (cents > debt.saldoCents) {
      throw invalid(
        `El importe de ${debt.nrocomp} (${centsToNumeric(cents)}) supera su saldo (${centsToNumeric(debt.saldoCents)})`,
      );
    }
    selected.push({ debt, cents });
  }

  if (rules.fullAmounts) {
    const last = rules.partialLast ? lastInFifoOrder(selected, debts) : undefined;
    for (const { debt, cents } of selected) {
      if (cents === debt.debeCents) continue;
      if (rules.partialLast && debt === last && cents < debt.debeCents) {
        const minimum = rules.partialLast.minimumCents;
        if (minimum !== undefined && cents < minimum) {
          throw new AppError(
            codes.partial,
            `El pago parcial de la factura ${debt.nrocomp} debe ser de al menos ${centsToNumeric(minimum)}`,
          );
        }
        continue;
      }
      throw new AppError(
        codes.partial,
        rules.partialLast && cents < debt.debeCents
          ? `La factura ${debt.nrocomp} debe pagarse completa (${centsToNumeric(debt.debeCents)}): solo la última en orden de vencimiento puede pagarse en parte`
          : `La factura ${debt.nrocomp} debe pagarse completa (${centsToNumeric(debt.debeCents)})`,
      );
    }
  }

  const sum = selected.reduce((acc, { cents }) => acc + cents, 0);
  const totalCents = checkTotal(request.total, sum, rules);

  if (rules.fifo) {
    const prefix = new Set(debts.slice(0, selected.length).map((debt) => debt.id.toLowerCase()));
    if (![...seen].every((id) => prefix.has(id))) {
      throw new AppError(
        codes.order,
        'Las facturas deben pagarse en orden de vencimiento: seleccione las más antiguas primero',
      );
    }
  }
  return { debts: selected, totalCents };
}
