-- Whether a refund reversed the ledger (docs/decisions.md #37): true when the receipt was voided
-- and the debts restored, false when it could not be (recibo_error says why), null when there was
-- no receipt to reverse or the payment was never refunded. The refund e-mail reads this column,
-- not the wording of recibo_error.
ALTER TABLE public.portal_payments ADD COLUMN refund_ledger_reversed boolean;

-- Refunds recorded before this column: their recibo_error began with the message this column
-- replaces when the ledger was not reversed.
UPDATE public.portal_payments
   SET refund_ledger_reversed = (recibo_error IS NULL OR recibo_error NOT LIKE 'Devolución sin reversión contable%')
 WHERE status = 'refunded' AND recibo_id IS NOT NULL;
