import { assertThat } from '../../platform/errors.js';
import { centsToNumber, numericToCents, numericToNumber } from '../../platform/money.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { PartialPaymentSettingsReader, PendingDebtsWithPayments } from '../payments/index.js';
import { findAccountSummary } from './queries.js';
import { issuerKnown, pdfOf } from '../../ledger/documents.js';
import type { Issuers } from '../../platform/tenancy/issuer.js';

const USER_GONE = 'Usuario no encontrado';

export function createAccountService(deps: {
  calendar: TenantCalendar;
  /** The payments module's: the pending debts with the payments in flight holding them. */
  pendingDebts: PendingDebtsWithPayments;
  /** The tenant's partial payments, from a cache: the list stays one statement. */
  partialPayments: Pick<PartialPaymentSettingsReader, 'cached'>;
  /** The tenant's issuer, from a minute's cache: whether its documents can be drawn. */
  issuers: Issuers;
}) {
  return {
    /** GET /portal/mi-cuenta (docs/decisions.md #35). */
    async summary(tenant: TenantContext, portalUserId: string) {
      const today = await deps.calendar.today(tenant);
      const row = await findAccountSummary(tenant, portalUserId, today);
      assertThat(row, 'USER_NOT_FOUND', USER_GONE);
      return {
        nombre: row.cnom,
        saldo_total: numericToNumber(row.saldo_total),
        // docs/decisions.md #48: the credit no invoice has taken, and the debt net of it (where
        // the statement of the whole history closes); in cents, no float on the way.
        saldo_a_favor: numericToNumber(row.saldo_a_favor),
        saldo_neto: centsToNumber(
          numericToCents(row.saldo_total) - numericToCents(row.saldo_a_favor),
        ),
        facturas_vencidas: row.vencidas,
        facturas_pendientes: row.pendientes,
        ultimo_pago:
          row.ultimo_fecha === null || row.ultimo_monto === null
            ? null
            : { fecha: row.ultimo_fecha, monto: numericToNumber(row.ultimo_monto) },
      };
    },

    /** GET /portal/deudas: pending debts in the order the FIFO rule of pagos/iniciar sees them. */
    async pendingDebts(tenant: TenantContext, portalUserId: string) {
      // The day comes from a cache; the debts and their payments, from one statement.
      const [today, debts, partial, issuer] = await Promise.all([
        deps.calendar.today(tenant),
        deps.pendingDebts(tenant, portalUserId),
        deps.partialPayments.cached(tenant),
        issuerKnown(deps.issuers, tenant),
      ]);
      assertThat(debts, 'USER_NOT_FOUND', USER_GONE);
      const items = debts.map((debt) => ({
        id: debt.id,
        comprobante: debt.comprobante,
        nrocomp: debt.nrocomp,
        fecha: debt.fecha,
        vencimiento: debt.vencimiento,
        debe: numericToNumber(debt.debe),
        importe: numericToNumber(debt.importe),
        vencido: debt.vencimiento !== null && debt.vencimiento < today,
        // The rule of GET /portal/facturas's `pdf` (docs/decisions.md #51): a button only there.
        pdf: pdfOf(debt.fiscal, issuer).pdf,
        pago_en_curso: debt.pago_en_curso,
      }));
      return {
        items,
        // docs/decisions.md #48: what pagos/iniciar takes, so a client knows before it asks.
        pago_parcial: {
          habilitado: partial.enabled,
          monto_minimo:
            partial.minimumCents === undefined ? null : centsToNumber(partial.minimumCents),
        },
      };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
