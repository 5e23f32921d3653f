-- Payments that resolve themselves (docs/payments.md "How a payment leaves issued"):
-- checkout_url is the gateway's address of an issued checkout, so a customer who left it can
-- come back to it (GET /portal/pagos/{id}, historial, deudas' pago_en_curso); gateway_checked_at
-- is when the portal last asked the gateway about the payment without a notification, claimed
-- in one UPDATE so at most one ask per payment per 10 seconds happens across every instance.
ALTER TABLE public.portal_payments
  ADD COLUMN checkout_url text,
  ADD COLUMN gateway_checked_at timestamptz;

-- Checkouts issued before this column: Mercado Pago's init_point and Ualá Bis's checkout_link
-- are in the gateway's answer kept in gateway_response; the sandbox's page is not.
UPDATE public.portal_payments
   SET checkout_url = coalesce(gateway_response -> 'checkout' ->> 'init_point',
                               gateway_response -> 'checkout' -> 'links' ->> 'checkout_link')
 WHERE status = 'issued';

-- A customer's payments holding debts, for GET /portal/deudas's pago_en_curso: by portal user,
-- only the few in flight.
CREATE INDEX portal_payments_user_in_flight_idx ON public.portal_payments (portal_user_id)
  WHERE status IN ('pending', 'issued') OR (status = 'approved' AND recibo_id IS NULL);
