import type { Clock } from '../../platform/clock.js';
import { couponStateOn } from '../../platform/coupons.js';
import { addDays } from '../../platform/dates.js';
import type { StoredCouponState } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import { centsToNumeric } from '../../platform/money.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { BARCODE_LIMITS, buildBarcode, parseBarcode, unencodable } from './barcode.js';
import {
  findCouponBy,
  findCouponOwner,
  insertCoupon,
  listCustomerCoupons,
  moveCoupon,
  nextCouponSequence,
  type ReadCoupon,
} from './queries.js';
import { checkSelectionRequest, COUPON_SELECTION, decideSelection } from '../debt-selection.js';
import { findPayableDebtsById } from '../pending-debts.js';
import { isUuid } from '../../platform/ids.js';
import type {
  Coupon,
  CouponListFilter,
  CouponPage,
  CouponSummary,
  GenerateCouponRequest,
} from './types.js';

function summaryOf(row: ReadCoupon, today: string): CouponSummary {
  return {
    id: row.id,
    codigoBarras: row.codigo_barras,
    cnro: row.cnro,
    secuencia: row.secuencia,
    sucursalId: row.sucursal_id,
    monto: row.monto,
    estado: couponStateOn(
      { estado: row.estado, fechaVencimiento: row.fecha_vencimiento, outlived: row.outlived },
      today,
    ),
    fechaGeneracion: row.fecha_generacion,
    fechaVencimiento: row.fecha_vencimiento,
    usedAt: row.used_at,
    cancelledAt: row.cancelled_at,
  };
}

const DEFAULT_EXPIRY_DAYS = 30;
const MAX_EXPIRY_DAYS = 365;

/** Days from today to fecha_vencimiento: 30 when absent (docs/api.md), 1..365. */
function expiryDaysOf(request: GenerateCouponRequest): number {
  const days = request.diasVencimiento ?? DEFAULT_EXPIRY_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRY_DAYS) {
    throw new AppError(
      'INVALID_REQUEST',
      `dias_vencimiento debe ser un entero entre 1 y ${MAX_EXPIRY_DAYS}`,
    );
  }
  return days;
}

const NOT_ENCODABLE: Record<'tenantId' | 'cnro', string> = {
  tenantId: `el número de empresa supera ${BARCODE_LIMITS.tenantId}`,
  cnro: `el número de cliente supera ${BARCODE_LIMITS.cnro}`,
};

/**
 * The account-ledger module's coupon services (docs/api.md "Coupons", docs/decisions.md #36 and 38):
 * generation, barcode validation, reads, and the ledger-side transitions to `used` and
 * `cancelled`. Every function takes the tenant context (database + customer-data schema), so the
 * portal routes, a PDF route or the reports service reach coupons the same way.
 */
export function createCouponLedger(deps: { calendar: TenantCalendar; clock: Clock }) {
  const { calendar, clock } = deps;

  /** A coupon with its debts and its estado as of today: one statement, beside the calendar. */
  async function findCoupon(
    tenant: TenantContext,
    by: { id: string } | { codigoBarras: string },
  ): Promise<Coupon | undefined> {
    const [today, row] = await Promise.all([
      calendar.today(tenant),
      findCouponBy(tenant.db, tenant.customerSchema, by),
    ]);
    return row && { ...summaryOf(row, today), facturas: row.facturas };
  }

  /** The coupon validation service: 19 digits (or 20 with a leading 0), right check digit. */
  function validateBarcode(codigoBarras: string) {
    const parsed = parseBarcode(codigoBarras);
    if (!parsed.ok) {
      throw new AppError(
        'INVALID_REQUEST',
        parsed.problem === 'format'
          ? 'El código de barras debe tener 19 dígitos'
          : 'El código de barras no es válido (dígito verificador incorrecto)',
      );
    }
    return { codigoBarras: parsed.codigoBarras, parts: parsed.parts };
  }

  async function findById(tenant: TenantContext, id: string): Promise<Coupon | undefined> {
    // Not a uuid: no such coupon (and no query PostgreSQL would refuse).
    if (!isUuid(id)) return undefined;
    return findCoupon(tenant, { id: id.toLowerCase() });
  }

  async function transition(
    tenant: TenantContext,
    id: string,
    to: 'used' | 'cancelled',
    from: readonly StoredCouponState[],
  ): Promise<Coupon> {
    const moved = isUuid(id) && (await moveCoupon(tenant, id, from, to, clock.now()));
    const coupon = await findById(tenant, id);
    if (!coupon) throw new AppError('CUPON_NOT_FOUND', 'Cupón no encontrado');
    // Already in the target state: a repeated report is a no-op, answered with the coupon.
    if (!moved && coupon.estado !== to) {
      // Only cancel gets here: a used coupon was paid and stays paid.
      throw new AppError(
        'INVALID_STATUS',
        `El cupón ${coupon.codigoBarras} ya fue pagado: no se puede anular`,
      );
    }
    return coupon;
  }

  return {
    /**
     * The coupon generation service. Checks dias_vencimiento and the request's own rules
     * (checkSelectionRequest), that tenant and customer fit the barcode, the selection against the customer's pending debts (decideSelection with
     * COUPON_SELECTION: each debt the customer's, once, an amount up to its saldo, the total
     * their sum), then allocates the customer's next sequence and stores the coupon, in one
     * transaction. fecha_generacion is the tenant's today; fecha_vencimiento today + dias.
     * Errors: 400 INVALID_REQUEST (the request), 422 CUPON_NO_DISPONIBLE (cannot be encoded).
     */
    async generate(tenant: TenantContext, request: GenerateCouponRequest): Promise<Coupon> {
      const diasVencimiento = expiryDaysOf(request);
      checkSelectionRequest(request, COUPON_SELECTION);
      const field = unencodable({ tenantId: tenant.tenantId, cnro: request.cnro, sequence: 0 });
      if (field === 'tenantId' || field === 'cnro') {
        throw new AppError(
          'CUPON_NO_DISPONIBLE',
          `No se pueden emitir cupones para este cliente: ${NOT_ENCODABLE[field]}`,
        );
      }
      const debts = await findPayableDebtsById(
        tenant,
        request.cnro,
        request.facturas.map((factura) => factura.id.toLowerCase()).filter(isUuid),
      );
      const selection = decideSelection(request, debts, COUPON_SELECTION);
      const today = await calendar.today(tenant);
      const facturas = selection.debts.map(({ debt, cents }) => ({
        id: debt.id,
        tipo: debt.comprobante,
        numero: debt.nrocomp,
        monto: centsToNumeric(cents),
      }));
      const row = await tenant.db
        .transaction()
        .execute(async function generateUnderCustomerLock(trx) {
          const secuencia = await nextCouponSequence(trx, request.cnro);
          if (secuencia > BARCODE_LIMITS.sequence) {
            // Thrown inside the transaction: the counter stays at its last usable value.
            throw new AppError(
              'CUPON_NO_DISPONIBLE',
              `No se pueden emitir más cupones para este cliente: se usaron los ${BARCODE_LIMITS.sequence} números`,
            );
          }
          return insertCoupon(
            trx,
            tenant.customerSchema,
            {
              codigo_barras: buildBarcode({
                tenantId: tenant.tenantId,
                cnro: request.cnro,
                sequence: secuencia,
              }),
              cnro: request.cnro,
              secuencia,
              sucursal_id: tenant.sucursalId,
              monto: centsToNumeric(selection.totalCents),
              fecha_generacion: today,
              fecha_vencimiento: addDays(today, diasVencimiento),
              created_at: clock.now(),
            },
            facturas,
          );
        });
      // The row as RETURNING gave it and the facturas as written: what a read would answer. No
      // debt owes less than the coupon assigns to it: decideSelection just held each to its saldo.
      return { ...summaryOf({ ...row, outlived: false }, today), facturas };
    },

    validateBarcode,

    /**
     * A coupon by its barcode (19 digits, or 20 with the scanner's leading 0). Runs the
     * validation service first: 400 INVALID_REQUEST before any query.
     */
    async findByBarcode(tenant: TenantContext, codigoBarras: string): Promise<Coupon | undefined> {
      const { codigoBarras: code } = validateBarcode(codigoBarras);
      return findCoupon(tenant, { codigoBarras: code });
    },

    /** A coupon by its id (`cupon_id`); undefined when absent or not a uuid. */
    findById,

    /**
     * Whose coupon an id names, from the coupon row alone: for an ownership check that needs
     * neither the facturas nor the estado. Undefined when absent or not a uuid.
     */
    findOwner(
      tenant: TenantContext,
      id: string,
    ): Promise<{ id: string; cnro: number; codigo_barras: string } | undefined> {
      if (!isUuid(id)) return Promise.resolve(undefined);
      return findCouponOwner(tenant.db, tenant.customerSchema, id.toLowerCase());
    },

    /** A customer's coupons, newest first, filtered by estado as of the tenant's today. */
    async listByCustomer(
      tenant: TenantContext,
      cnro: number,
      filter: CouponListFilter,
    ): Promise<CouponPage> {
      const today = await calendar.today(tenant);
      const { rows, total } = await listCustomerCoupons(tenant, cnro, {
        estado: filter.estado,
        limit: filter.limit,
        offset: filter.offset,
        today,
      });
      return {
        cupones: rows.map((row) => ({ ...summaryOf(row, today), facturas: row.facturas })),
        total,
      };
    },

    /**
     * The collection network reports the coupon paid. From pending (expired too, and cancelled on
     * read because a covered debt was paid otherwise, docs/decisions.md #50: the network took the
     * money) and from cancelled (money received is never dropped, as docs/decisions.md #28 says of
     * payments); already used is a no-op. 404 CUPON_NOT_FOUND.
     */
    markUsed(tenant: TenantContext, id: string): Promise<Coupon> {
      return transition(tenant, id, 'used', ['pending', 'cancelled']);
    },

    /**
     * The ledger voids a coupon not paid yet (expired ones too); already cancelled is a no-op;
     * a used coupon cannot be cancelled: 409 INVALID_STATUS. 404 CUPON_NOT_FOUND.
     */
    cancel(tenant: TenantContext, id: string): Promise<Coupon> {
      return transition(tenant, id, 'cancelled', ['pending']);
    },
  };
}

export type CouponLedger = ReturnType<typeof createCouponLedger>;
