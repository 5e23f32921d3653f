import type { ReceiptTransfer } from '../../ledger/receipt-document.js';
import type { TransfersOfReceipts } from '../receipts/index.js';
import { findPendingDebts, type PendingDebtRow } from '../../ledger/pending-debts.js';
import type { MovementType } from '../../../contract/statement.js';
import {
  findStatement,
  type LedgerStatement,
  type StatementPeriod,
} from '../../ledger/statement.js';
import { addDays } from '../../platform/dates.js';
import { AppError } from '../../platform/errors.js';
import { centsToNumber, numericToCents } from '../../platform/money.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { ReportsClient } from '../../platform/reports/client.js';
import { reportsFailure } from '../reports-failure.js';
import { MAX_STATEMENT_MOVEMENTS, type StatementReport } from '../../../contract/reports.js';
import { resolvePeriod, type PeriodQuery } from '../../ledger/period.js';
import { issuerKnown, pdfOf } from '../../ledger/documents.js';
import type { Issuers } from '../../platform/tenancy/issuer.js';

const USER_GONE = 'Usuario no encontrado';

/** Today's pending debts by days overdue, in cents (docs/api.md GET /portal/estado-cuenta). */
export interface AgingCents {
  a_vencer: number;
  vencido_1_30: number;
  vencido_31_60: number;
  vencido_61_90: number;
  vencido_mas_90: number;
}

/**
 * The debts GET /portal/deudas lists (the same rows: the ledger's pending-debts query), each
 * whole `debe` in one bucket by how many days before today it fell due: none or not yet (due
 * today included) is `a_vencer`. The buckets add up to the sum of the list's `debe`. Dates are
 * `YYYY-MM-DD`, so the bounds compare as text.
 */
export function agingOf(debts: readonly PendingDebtRow[], today: string): AgingCents {
  const aging: AgingCents = {
    a_vencer: 0,
    vencido_1_30: 0,
    vencido_31_60: 0,
    vencido_61_90: 0,
    vencido_mas_90: 0,
  };
  // The earliest due date of each bucket: 30 days overdue is due on today - 30.
  const [due30, due60, due90] = [30, 60, 90].map((days) => addDays(today, -days)) as [
    string,
    string,
    string,
  ];
  for (const debt of debts) {
    // The row of a user without debts (pending-debts' left join).
    if (debt.id === null || debt.debe === null) continue;
    const cents = numericToCents(debt.debe);
    const due = debt.vencimiento;
    if (due === null || due >= today) aging.a_vencer += cents;
    else if (due >= due30) aging.vencido_1_30 += cents;
    else if (due >= due60) aging.vencido_31_60 += cents;
    else if (due >= due90) aging.vencido_61_90 += cents;
    else aging.vencido_mas_90 += cents;
  }
  return aging;
}

/** A statement as the API answers it: amounts as 2-decimal JSON numbers. */
export interface Statement {
  desde: string;
  hasta: string;
  saldo_inicial: number;
  movimientos: {
    id: string;
    fecha: string;
    tipo: MovementType;
    comprobante: string;
    nrocomp: string;
    vencimiento: string | null;
    detalle: string | null;
    debe: number;
    haber: number;
    saldo: number;
    pdf: boolean;
  }[];
  total_debe: number;
  total_haber: number;
  saldo_final: number;
  antiguedad: { [bucket in keyof AgingCents]: number };
}

/** A transfer's receipt, as a statement line says it: "Transferencia de Juan Pérez, Banco Nación". */
function transferDetail(transfer: ReceiptTransfer | undefined): string | null {
  if (transfer === undefined) return null;
  return [
    transfer.ordenante === null ? 'Transferencia' : `Transferencia de ${transfer.ordenante}`,
    transfer.banco,
  ]
    .filter((part) => part !== null)
    .join(', ');
}

/** The running balance, the totals and the aging, summed in cents (docs/decisions.md #5). */
function statementOf(
  period: StatementPeriod,
  ledger: LedgerStatement,
  aging: AgingCents,
  issuer: boolean,
  transfers: ReadonlyMap<string, ReceiptTransfer>,
) {
  let balance = ledger.openingCents;
  let debits = 0;
  let credits = 0;
  const movimientos: Statement['movimientos'] = ledger.movements.map((movement) => {
    balance += movement.debeCents - movement.haberCents;
    debits += movement.debeCents;
    credits += movement.haberCents;
    return {
      id: movement.id,
      fecha: movement.fecha,
      tipo: movement.tipo,
      comprobante: movement.comprobante,
      nrocomp: movement.nrocomp,
      vencimiento: movement.vencimiento,
      detalle: transferDetail(transfers.get(movement.id.toLowerCase())),
      debe: centsToNumber(movement.debeCents),
      haber: centsToNumber(movement.haberCents),
      saldo: centsToNumber(balance),
      // GET /portal/facturas's rule (docs/decisions.md #51); a receipt's PDF is another route.
      pdf: movement.tipo !== 'REC' && pdfOf(movement.fiscal, issuer).pdf,
    };
  });
  const statement: Statement = {
    desde: period.desde,
    hasta: period.hasta,
    saldo_inicial: centsToNumber(ledger.openingCents),
    movimientos,
    total_debe: centsToNumber(debits),
    total_haber: centsToNumber(credits),
    saldo_final: centsToNumber(balance),
    antiguedad: {
      a_vencer: centsToNumber(aging.a_vencer),
      vencido_1_30: centsToNumber(aging.vencido_1_30),
      vencido_31_60: centsToNumber(aging.vencido_31_60),
      vencido_61_90: centsToNumber(aging.vencido_61_90),
      vencido_mas_90: centsToNumber(aging.vencido_mas_90),
    },
  };
  return statement;
}

/** What the report's fields take (contract/report-bodies.ts): ERP text cut to fit. */
const fit = (text: string, length: number) => (text.length > length ? text.slice(0, length) : text);

/**
 * The body of `portal-estado-cuenta`: the answer of GET /portal/estado-cuenta without the ids,
 * with the tenant's and the customer's names. Long ERP texts are cut to the report's limits
 * (the PDF cuts them further, with an ellipsis) rather than refused.
 */
export function statementReport(
  tenant: TenantContext,
  cliente: LedgerStatement['cliente'],
  statement: Statement,
): StatementReport {
  return {
    empresa: fit(tenant.tenantName, 1000),
    cliente: { nombre: fit(cliente.nombre, 1000), dni_cuit: fit(cliente.documento, 100) },
    desde: statement.desde,
    hasta: statement.hasta,
    saldo_inicial: statement.saldo_inicial,
    movimientos: statement.movimientos.map((movement) => ({
      fecha: movement.fecha,
      tipo: movement.tipo,
      comprobante: fit(
        movement.detalle === null
          ? movement.comprobante
          : `${movement.comprobante} (${movement.detalle})`,
        200,
      ),
      nrocomp: fit(movement.nrocomp, 100),
      vencimiento: movement.vencimiento,
      debe: movement.debe,
      haber: movement.haber,
      saldo: movement.saldo,
    })),
    total_debe: statement.total_debe,
    total_haber: statement.total_haber,
    saldo_final: statement.saldo_final,
    antiguedad: statement.antiguedad,
  };
}

/**
 * The statement of account (docs/api.md GET /portal/estado-cuenta): the period's dates from the
 * query, everything else from the token's customer. Two reads after the tenant's today: the
 * ledger's pending debts (the aging, and the portal user's customer number), then the ledger's
 * statement of that customer (one statement: name, opening balance, movements), which needs the
 * number as a value to be planned well (src/ledger/statement.ts).
 */
export function createStatementService(deps: {
  calendar: TenantCalendar;
  reports: ReportsClient;
  issuers: Issuers;
  /** Which receipts came from a bank transfer (the transfers module's, handed in by app.ts). */
  transfersOfReceipts: TransfersOfReceipts;
}) {
  async function read(tenant: TenantContext, portalUserId: string, query: PeriodQuery) {
    const { period, today } = await resolvePeriod(query, () => deps.calendar.today(tenant));
    // The user's row comes back even without debts (pending-debts' left join); the issuer is
    // a minute's cache.
    const [debts, issuer] = await Promise.all([
      findPendingDebts(tenant, portalUserId),
      issuerKnown(deps.issuers, tenant),
    ]);
    const user = debts[0];
    if (!user) throw new AppError('USER_NOT_FOUND', USER_GONE);
    // One more than accepted: a longer period is known without reading all of it.
    const ledger = await findStatement(tenant, user.cnro, period, MAX_STATEMENT_MOVEMENTS + 1);
    if (!ledger) throw new AppError('USER_NOT_FOUND', USER_GONE);
    if (ledger.movements.length > MAX_STATEMENT_MOVEMENTS) {
      throw new AppError(
        'PERIODO_DEMASIADO_EXTENSO',
        `El período tiene más de ${MAX_STATEMENT_MOVEMENTS.toLocaleString('es-AR')} movimientos: elija uno más corto`,
      );
    }
    const receiptIds = ledger.movements
      .filter((movement) => movement.tipo === 'REC')
      .map((movement) => movement.id);
    const transfers = await deps.transfersOfReceipts(tenant, receiptIds);
    return {
      ledger,
      statement: statementOf(period, ledger, agingOf(debts, today), issuer, transfers),
    };
  }

  return {
    /** GET /portal/estado-cuenta. */
    async statement(
      tenant: TenantContext,
      portalUserId: string,
      query: PeriodQuery,
    ): Promise<Statement> {
      return (await read(tenant, portalUserId, query)).statement;
    },

    /**
     * GET /portal/estado-cuenta/pdf: the same statement, drawn by the reports service
     * (`portal-estado-cuenta`): 503 SERVICE_UNAVAILABLE with its Retry-After when it is busy,
     * 502 INFORMES_ERROR for any other failure.
     */
    async pdf(
      tenant: TenantContext,
      portalUserId: string,
      query: PeriodQuery,
    ): Promise<{ filename: string; pdf: Buffer }> {
      const { ledger, statement } = await read(tenant, portalUserId, query);
      try {
        const pdf = await deps.reports.statement(
          { tenant_id: tenant.tenantId, sucursal_id: tenant.sucursalId },
          statementReport(tenant, ledger.cliente, statement),
        );
        // Both dates are YYYY-MM-DD (the schema's and the defaults'): safe in a quoted parameter.
        return { filename: `estado-de-cuenta-${statement.desde}-${statement.hasta}.pdf`, pdf };
      } catch (error) {
        throw reportsFailure(error, 'el estado de cuenta');
      }
    },
  };
}

export type StatementService = ReturnType<typeof createStatementService>;
