-- What the gateway said it approved, recorded by TX1 with the status change. The receipt (TX2,
-- its retry job, the CLI) is written only when this matches the payment's monto and currency
-- (docs/decisions.md #30), whichever path writes it.
CREATE TABLE public.portal_payment_approvals (
  payment_id integer PRIMARY KEY REFERENCES public.portal_payments (id) ON DELETE CASCADE,
  amount numeric(15, 2) NOT NULL,
  currency varchar(10) NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);

-- Payments approved before this table existed: the webhook compared the amount then and wrote
-- the approved figure into recibo_error when it differed ("Importe aprobado <amount> <currency>
-- distinto ..."); every other approval matched the payment.
INSERT INTO public.portal_payment_approvals (payment_id, amount, currency)
SELECT id,
       COALESCE(substring(recibo_error FROM '^Importe aprobado ([0-9]+(?:\.[0-9]+)?) ')::numeric, monto),
       COALESCE(substring(recibo_error FROM '^Importe aprobado [0-9.]+ ([A-Za-z]+) '), currency, 'ARS')
  FROM public.portal_payments
 WHERE status IN ('approved', 'refunded') AND monto IS NOT NULL;

-- A cancel or refund in progress: claimed under the payment's row lock before any gateway call,
-- so two at once make one call and the other is refused. A claim older than a few gateway
-- timeouts belongs to a process that died and may be taken over.
CREATE TABLE public.portal_payment_claims (
  payment_id integer PRIMARY KEY REFERENCES public.portal_payments (id) ON DELETE CASCADE,
  operation varchar(20) NOT NULL CHECK (operation IN ('cancel', 'refund', 'expire')),
  claimed_at timestamptz NOT NULL DEFAULT now()
);

-- A customer's payments still holding their debts (docs/decisions.md #26): in flight at the gateway,
-- or approved and waiting for their receipt.
CREATE INDEX portal_payments_holding_debts_idx ON public.portal_payments (ordcon_id)
  WHERE status IN ('pending', 'issued') OR (status = 'approved' AND recibo_id IS NULL);
