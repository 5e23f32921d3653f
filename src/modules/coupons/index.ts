import type { FastifyInstance } from 'fastify';
import { createCouponLedger } from '../../ledger/coupons/service.js';
import type { PaymentHoldingDebts } from '../payments/index.js';
import type { Shared } from '../shared.js';
import { couponRoutes } from './routes.js';
import { createCouponService } from './service.js';

/** Payment coupons with their ITF barcode, delegated to the ledger's coupon services (docs/decisions.md #36). */
export function registerCoupons(
  app: FastifyInstance,
  shared: Pick<Shared, 'calendar' | 'clock' | 'metrics' | 'reports'>,
  deps: { paymentHoldingDebts: PaymentHoldingDebts },
): void {
  const ledger = createCouponLedger({ calendar: shared.calendar, clock: shared.clock });
  const coupons = createCouponService({
    ledger,
    metrics: shared.metrics,
    paymentHoldingDebts: deps.paymentHoldingDebts,
  });
  couponRoutes(app, { coupons, reports: shared.reports });
}
