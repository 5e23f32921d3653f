import { assertThat } from '../../platform/errors.js';
import { numericToNumber } from '../../platform/money.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { PendingDebtsWithPayments } from '../payments/index.js';
import { findAccountSummary } from './queries.js';

const USER_GONE = 'Usuario no encontrado';

export function createAccountService(deps: {
  calendar: TenantCalendar;
  /** The payments module's: the pending debts with the payments in flight holding them. */
  pendingDebts: PendingDebtsWithPayments;
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
      const [today, debts] = await Promise.all([
        deps.calendar.today(tenant),
        deps.pendingDebts(tenant, portalUserId),
      ]);
      assertThat(debts, 'USER_NOT_FOUND', USER_GONE);
      const items = debts.map((debt) => ({
        id: debt.id,
        comprobante: debt.comprobante,
        nrocomp: debt.nrocomp,
        fecha: debt.fecha,
        vencimiento: debt.vencimiento,
        debe: numericToNumber(debt.debe),
        vencido: debt.vencimiento !== null && debt.vencimiento < today,
        pago_en_curso: debt.pago_en_curso,
      }));
      return { items };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
