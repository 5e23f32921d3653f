import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { numericToNumber } from '../../platform/money.js';
import type { Tenancy } from '../../platform/tenancy/tenancy.js';
import { verifyResultToken } from './checkout/result-token.js';
import type { PaymentResolution } from './notifications/resolution.js';
import { findPaymentResult, type PaymentResultRow } from './queries/payment-result.js';

const INVALID_LINK = 'El enlace del pago no es válido o venció. Ingresá a tu cuenta para verlo.';
const NOT_FOUND = 'Pago no encontrado';

export interface PaymentResult {
  payment_id: number;
  estado: PaymentResultRow['status'];
  monto: number;
  recibo_numero: string | null;
  tenant_id: number;
  sucursal_id: number;
}

/**
 * The token's tenant and sucursal go with the status: the page shows the brand of the tenant the
 * payment is of, never the address's (a token of one business under another's address is a fake
 * proof of payment; the page refuses the mismatch).
 */
function toResult(row: PaymentResultRow, tenant: TenantContext): PaymentResult {
  return {
    payment_id: row.id,
    tenant_id: tenant.tenantId,
    sucursal_id: tenant.sucursalId,
    estado: row.status,
    monto: row.monto === null ? 0 : numericToNumber(row.monto),
    recibo_numero: row.recibo_numero,
  };
}

/**
 * GET /portal/pagos/{id}/resultado (public): the result page's status read through the return
 * address's token, the only credential. A token that does not verify (missing, malformed,
 * tampered, expired) is one 401 whatever is wrong with it, answered before any query; a valid one
 * for another payment is a 404, like a payment that is not there. An issued payment is first asked
 * about at its gateway, as GET /portal/pagos/{id} does (at most once per 10 s across instances).
 */
export function createPaymentResult(deps: {
  tenancy: Pick<Tenancy, 'tryResolve'>;
  clock: Clock;
  resultKey: Buffer;
  resolution: Pick<PaymentResolution, 'look'>;
}) {
  return async function paymentResult(
    paymentId: number,
    token: string | undefined,
  ): Promise<PaymentResult> {
    const nowSeconds = deps.clock.now().getTime() / 1000;
    const subject =
      token === undefined ? undefined : verifyResultToken(deps.resultKey, token, nowSeconds);
    if (!subject) throw new AppError('INVALID_RESULT_TOKEN', INVALID_LINK);
    if (subject.paymentId !== paymentId) throw new AppError('PAYMENT_NOT_FOUND', NOT_FOUND);
    const tenant = await deps.tenancy.tryResolve(subject.tenantId, subject.sucursalId);
    if (!tenant) throw new AppError('PAYMENT_NOT_FOUND', NOT_FOUND);
    let row = await findPaymentResult(tenant.db, tenant, paymentId);
    if (!row) throw new AppError('PAYMENT_NOT_FOUND', NOT_FOUND);
    if (row.status === 'issued' && (await deps.resolution.look(tenant, row.id))) {
      row = (await findPaymentResult(tenant.db, tenant, paymentId)) ?? row;
    }
    return toResult(row, tenant);
  };
}

export type PaymentResultReader = ReturnType<typeof createPaymentResult>;
