import { AppError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { centsOf, centsToDecimal, requestCents } from '../../platform/money.js';
import type { GenerateCouponRequest } from './types.js';

/** numeric(15,2): 13 integer digits and 2 decimals, in cents. */
const MAX_CENTS = 999_999_999_999_999;

const DEFAULT_DIAS_VENCIMIENTO = 30;
const MAX_DIAS_VENCIMIENTO = 365;

function invalid(message: string): AppError {
  return new AppError('INVALID_REQUEST', message);
}

interface ParsedSelection {
  /** Lower-cased debt ids with their cents, in the request's order. */
  facturas: { id: string; cents: number }[];
  totalCents: number;
  diasVencimiento: number;
}

/**
 * The request's own rules, before any debt is read (DECISIONS.md 36: like a payment's, without
 * FIFO or full amounts; every failure is 400 INVALID_REQUEST): at least one debt, each once, each
 * amount a cent figure (within SPEC.md's 0.001) above zero, `total` positive and equal to the sum
 * in cents.
 */
export function parseSelection(request: GenerateCouponRequest): ParsedSelection {
  const dias = request.diasVencimiento ?? DEFAULT_DIAS_VENCIMIENTO;
  if (!Number.isInteger(dias) || dias < 1 || dias > MAX_DIAS_VENCIMIENTO) {
    throw invalid(`dias_vencimiento debe ser un entero entre 1 y ${MAX_DIAS_VENCIMIENTO}`);
  }
  if (request.facturas.length === 0) throw invalid('Seleccione al menos una factura');
  const seen = new Set<string>();
  const facturas: ParsedSelection['facturas'] = [];
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
    facturas.push({ id, cents });
  }
  const totalCents = requestCents(request.total);
  if (totalCents === undefined || totalCents <= 0) {
    throw invalid('total debe ser un importe positivo con hasta 2 decimales');
  }
  const sum = facturas.reduce((acc, factura) => acc + factura.cents, 0);
  if (sum > MAX_CENTS) throw invalid('La suma de los importes supera el máximo admitido');
  if (totalCents !== sum) {
    throw invalid(
      `El total (${centsToDecimal(totalCents)}) no es la suma de los importes (${centsToDecimal(sum)})`,
    );
  }
  return { facturas, totalCents, diasVencimiento: dias };
}

interface PendingDebt {
  id: string;
  comprobante: string;
  nrocomp: string;
  saldo: string;
}

/**
 * Each requested debt must be one of the customer's pending debts (the ledger's one definition:
 * `isPendingDebt`), and its amount at most the debt's saldo. Partial amounts are fine.
 */
export function matchPendingDebts(
  selection: ParsedSelection,
  debts: readonly PendingDebt[],
): { debt: PendingDebt; cents: number }[] {
  const byId = new Map(debts.map((debt) => [debt.id.toLowerCase(), debt]));
  return selection.facturas.map(({ id, cents }) => {
    const debt = byId.get(id);
    if (!debt) throw invalid(`La factura ${id} no es una deuda pendiente del cliente`);
    const saldoCents = centsOf(debt.saldo);
    if (cents > saldoCents) {
      throw invalid(
        `El importe de ${debt.nrocomp} (${centsToDecimal(cents)}) supera su saldo (${centsToDecimal(saldoCents)})`,
      );
    }
    return { debt, cents };
  });
}
