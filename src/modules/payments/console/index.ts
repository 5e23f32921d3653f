import type { Clock } from '../../../platform/clock.js';
import { storedName } from '../../../ledger/documents.js';
import { addDays, instantOfLocalTime, isoInTimeZone } from '../../../platform/dates.js';
import { AppError } from '../../../platform/errors.js';
import { isPositiveInt4 } from '../../../platform/ids.js';
import { numericToNumber } from '../../../platform/money.js';
import type { PaymentStatus } from '../../../platform/db/types.js';
import type { SucursalSchemas } from '../../../platform/tenancy/sucursal-schemas.js';
import type { Tenancy, TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { TenantCalendar } from '../../../platform/tenancy/today.js';
import type { AttentionReason } from '../../../../contract/staff.js';
import type { PaymentEmailQueue } from '../emails/payment-emails.js';
import { gatewayLabel } from '../gateways/table.js';
import type { ReceiptAttempts } from '../receipts/issuer.js';
import type { PaymentLifecycle } from '../refunds/cancel-and-refund.js';
import {
  findCollected,
  findConsolePayment,
  findConsolePayments,
  type AttentionTimings,
  type ConsolePaymentRow,
  type PaymentFilters,
} from './queries.js';

/*
 * The payments as the business's console sees them and acts on them (docs/staff.md): every
 * payment of the tenant, what needs a person, and the two actions a person may take on a
 * payment: TX2 again, and the refund the customer could ask for.
 */

/** The tenant a staff request is of: its id and its database (any sucursal's context has both). */
export interface StaffTenant {
  tenantId: number;
  db: TenantContext['db'];
}

const NOT_FOUND = 'Pago no encontrado';

/** What the clerk reads about each reason (es-AR). */
const ATTENTION_DETAIL: Record<Exclude<AttentionReason, `transferencia_${string}`>, string> = {
  recibo_fallido:
    'La pasarela aprobó el pago pero el recibo no se pudo registrar y los reintentos automáticos se agotaron. Revisá el error y reintentá el recibo.',
  aprobacion_rechazada:
    'La pasarela aprobó un importe o una moneda distintos de lo que se cobraba: no se registra recibo automáticamente. Devolvé el pago o registralo a mano en el sistema.',
  checkout_sin_resolver:
    'El pago quedó iniciado más allá del tiempo de su checkout y la pasarela no informa su resultado. Consultalo en la pasarela.',
};

export interface ConsolePayment {
  payment_id: number;
  fecha: string;
  sucursal_id: number;
  cliente: { cnro: number; nombre: string; dni_cuit: string };
  metodo: string;
  metodo_nombre: string;
  monto: number;
  estado: PaymentStatus;
  recibo_numero: string | null;
  atencion: AttentionReason | null;
  pagado_con_enlace: boolean;
}

export interface ListQuery {
  estado?: PaymentStatus | undefined;
  desde?: string | undefined;
  hasta?: string | undefined;
  q?: string | undefined;
  sucursal_id?: number | undefined;
}

export function createPaymentsConsole(deps: {
  tenancy: Tenancy;
  sucursales: SucursalSchemas;
  calendar: TenantCalendar;
  clock: Clock;
  checkoutTtlMs: number;
  /** The receipt job's retries' span (retry delay × 2⁸ − 1 with backoff): then a person looks. */
  receiptRetriesMs: number;
  attempts: ReceiptAttempts;
  emails: Pick<PaymentEmailQueue, 'queueReceiptEmail'>;
  lifecycle: PaymentLifecycle;
}) {
  const { tenancy, calendar, clock } = deps;

  function timings(): AttentionTimings {
    return {
      now: clock.now(),
      receiptRetriesMs: deps.receiptRetriesMs,
      // The expiry job runs every minute or so: ten more minutes and it could not resolve it.
      unresolvedAfterMs: deps.checkoutTtlMs + 10 * 60_000,
    };
  }

  function itemOf(row: ConsolePaymentRow, zone: string): ConsolePayment {
    return {
      payment_id: row.id,
      fecha: isoInTimeZone(row.created_at, zone),
      sucursal_id: row.sucursal_id,
      cliente: {
        cnro: row.ordcon_id ?? 0,
        nombre: row.cnom?.trim() ?? '',
        dni_cuit: row.ccui?.trim() ?? '',
      },
      metodo: row.gateway ?? '',
      metodo_nombre: gatewayLabel(row.gateway),
      monto: row.monto === null ? 0 : numericToNumber(row.monto),
      estado: row.status,
      recibo_numero: row.recibo_numero,
      atencion: row.atencion,
      pagado_con_enlace: row.con_enlace,
    };
  }

  /** A sucursal filter names one of the tenant's sucursales (422 INVALID_SUCURSAL otherwise). */
  async function checkSucursal(tenant: StaffTenant, sucursalId: number | undefined) {
    const all = await deps.sucursales.of(tenant);
    if (sucursalId !== undefined && !all.some((sucursal) => sucursal.id === sucursalId)) {
      throw new AppError('INVALID_SUCURSAL', 'La sucursal no pertenece a la empresa');
    }
    return all;
  }

  async function filtersOf(tenant: StaffTenant, query: ListQuery): Promise<PaymentFilters> {
    const zone = await calendar.zone(tenant);
    if (query.desde && query.hasta && query.desde > query.hasta) {
      throw new AppError('VALIDATION_ERROR', '"desde" es posterior a "hasta"');
    }
    return {
      estado: query.estado,
      from: query.desde ? instantOfLocalTime(query.desde, 0, zone) : undefined,
      until: query.hasta ? instantOfLocalTime(addDays(query.hasta, 1), 0, zone) : undefined,
      q: query.q,
      sucursalId: query.sucursal_id,
    };
  }

  async function list(
    tenant: StaffTenant,
    query: ListQuery,
    page: { limit: number; offset: number } | undefined,
  ) {
    const sucursales = await checkSucursal(tenant, query.sucursal_id);
    const [filters, zone] = await Promise.all([filtersOf(tenant, query), calendar.zone(tenant)]);
    const rows = await findConsolePayments(tenant.db, {
      tenantId: tenant.tenantId,
      sucursales,
      filters,
      timings: timings(),
      page,
    });
    return { rows, items: rows.map((row) => itemOf(row, zone)), zone };
  }

  /** The payment's own sucursal's context: its ledger and customers are there. */
  async function contextOf(tenant: StaffTenant, paymentId: number) {
    const sucursales = await deps.sucursales.of(tenant);
    const row = isPositiveInt4(paymentId)
      ? await findConsolePayment(tenant.db, {
          tenantId: tenant.tenantId,
          sucursales,
          paymentId,
          timings: timings(),
        })
      : undefined;
    if (!row) throw new AppError('PAYMENT_NOT_FOUND', NOT_FOUND);
    const context = await tenancy.tryResolve(tenant.tenantId, row.sucursal_id);
    if (!context) throw new AppError('PAYMENT_NOT_FOUND', NOT_FOUND);
    return { row, context };
  }

  return {
    async page(tenant: StaffTenant, query: ListQuery, page: { limit: number; offset: number }) {
      const { rows, items } = await list(tenant, query, page);
      const total = rows[0] ? Number(rows[0].total) : 0;
      return { items, total, has_more: page.offset + items.length < total };
    },

    /** Every match, for the CSV (the list's filters, no page). */
    async all(tenant: StaffTenant, query: ListQuery) {
      return (await list(tenant, query, undefined)).items;
    },

    async detail(tenant: StaffTenant, paymentId: number) {
      const { row } = await contextOf(tenant, paymentId);
      const zone = await calendar.zone(tenant);
      const at = (moment: Date | null) => (moment ? isoInTimeZone(moment, zone) : null);
      return {
        ...itemOf(row, zone),
        facturas: row.facturas_json.map((factura) => ({
          id: factura.id,
          // As the customer's pages name it (contract/names.ts).
          ...storedName(factura),
          monto: factura.monto,
          pago: factura.pago,
        })),
        creado: isoInTimeZone(row.created_at, zone),
        emitido: at(row.issued_at),
        aprobado: at(row.approved_at),
        rechazado: at(row.rejected_at),
        cancelado: at(row.cancelled_at),
        devuelto: at(row.refunded_at),
        recibo_fecha: at(row.recibo_at),
        recibo_error: row.recibo_error,
        gateway: { status: row.gateway_status, detail: row.gateway_detail },
      };
    },

    /** Every payment that needs a person, oldest first (the one waiting longest on top). */
    async attention(tenant: StaffTenant, page: { limit: number; offset: number }) {
      const zone = await calendar.zone(tenant);
      const rows = await findConsolePayments(tenant.db, {
        tenantId: tenant.tenantId,
        sucursales: await deps.sucursales.of(tenant),
        filters: { attentionOnly: true },
        timings: timings(),
        page: undefined,
      });
      const items = rows
        .filter((row) => row.atencion !== null && row.atencion in ATTENTION_DETAIL)
        .map((row) => {
          const motivo = row.atencion as keyof typeof ATTENTION_DETAIL;
          const detalle =
            motivo === 'recibo_fallido' && row.recibo_error
              ? `${ATTENTION_DETAIL[motivo]} Error: ${row.recibo_error}`
              : ATTENTION_DETAIL[motivo];
          return {
            payment_id: row.id,
            transferencia_id: null,
            motivo,
            detalle,
            desde: isoInTimeZone(row.atencion_desde ?? row.created_at, zone),
          };
        })
        .reverse();
      return {
        items: items.slice(page.offset, page.offset + page.limit),
        total: items.length,
        has_more: page.offset + page.limit < items.length,
      };
    },

    /** What the portal collected, today and in the last 30 days, by gateway. */
    async collected(tenant: StaffTenant) {
      const [zone, today] = await Promise.all([calendar.zone(tenant), calendar.today(tenant)]);
      const rows = await findCollected(tenant.db, {
        tenantId: tenant.tenantId,
        todayFrom: instantOfLocalTime(today, 0, zone),
        monthFrom: instantOfLocalTime(addDays(today, -29), 0, zone),
      });
      const sum = (pick: (row: (typeof rows)[number]) => [string, string]) => {
        const por_metodo = rows
          .map((row) => {
            const [cantidad, monto] = pick(row);
            return {
              metodo: row.gateway ?? '',
              metodo_nombre: gatewayLabel(row.gateway),
              cantidad: Number(cantidad),
              monto: numericToNumber(monto),
            };
          })
          .filter((entry) => entry.cantidad > 0);
        const cents = por_metodo.reduce((total, entry) => total + Math.round(entry.monto * 100), 0);
        return {
          cantidad: por_metodo.reduce((total, entry) => total + entry.cantidad, 0),
          monto: cents / 100,
          por_metodo,
        };
      };
      return {
        hoy: sum((row) => [row.hoy_cantidad, row.hoy_monto]),
        ultimos_30_dias: sum((row) => [row.mes_cantidad, row.mes_monto]),
      };
    },

    /**
     * TX2 again, exactly as `cli payments retry-receipts` runs it (never a second receipt): an
     * approved payment's receipt, its e-mail queued once written. A payment with its receipt
     * answers its number; one not approved is 409 INVALID_STATUS.
     */
    async retryReceipt(tenant: StaffTenant, paymentId: number) {
      const { row, context } = await contextOf(tenant, paymentId);
      if (row.status !== 'approved') {
        throw new AppError(
          'INVALID_STATUS',
          `Solo un pago aprobado tiene recibo (estado: ${row.status})`,
        );
      }
      let outcome;
      try {
        outcome = await deps.attempts.attemptFor(context, row.id);
      } catch {
        // attemptFor recorded why in recibo_error: the answer says it.
        outcome = undefined;
      }
      if (outcome?.kind === 'created' || outcome?.kind === 'exists') {
        await deps.emails.queueReceiptEmail(context, row.id);
      }
      const after = await contextOf(tenant, paymentId);
      return {
        payment_id: row.id,
        recibo_numero: after.row.recibo_numero,
        recibo_error: after.row.recibo_numero === null ? after.row.recibo_error : null,
      };
    },

    /** The customer's refund, asked by staff: through the gateway, the ledger reversed, the e-mail. */
    async refund(tenant: StaffTenant, paymentId: number) {
      const { row, context } = await contextOf(tenant, paymentId);
      return deps.lifecycle.refundPayment(context, row.id);
    },

    /** How many payments need a person now. */
    async attentionCount(tenant: StaffTenant): Promise<number> {
      const rows = await findConsolePayments(tenant.db, {
        tenantId: tenant.tenantId,
        sucursales: await deps.sucursales.of(tenant),
        filters: { attentionOnly: true },
        timings: timings(),
        page: { limit: 1, offset: 0 },
      });
      return rows[0] ? Number(rows[0].total) : 0;
    },
  };
}

export type PaymentsConsole = ReturnType<typeof createPaymentsConsole>;
