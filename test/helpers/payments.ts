import type { TestTenant } from './harness.js';

/** The columns of `public.portal_payments` the payment tests read. */
export interface PaymentRow {
  status: string;
  reference: string;
  gateway_payment_id: string | null;
  recibo_id: string | null;
  recibo_error: string | null;
  refund_id: string | null;
  updated_at: Date | null;
}

export async function paymentRow(tenant: TestTenant, id: number): Promise<PaymentRow> {
  const [row] = await tenant.query<PaymentRow>(
    `SELECT status, reference, gateway_payment_id, recibo_id, recibo_error, refund_id, updated_at
       FROM public.portal_payments WHERE id = $1`,
    [id],
  );
  if (!row) throw new Error(`no payment ${id}`);
  return row;
}
