-- The e-mails a payment's events send its portal user (docs/payments.md "Payment e-mails"):
-- one row per payment and kind, sent_at set in the transaction that holds the row's lock while
-- SMTP accepts the message, so duplicate jobs (duplicate webhooks, TX2 retries, instances) send
-- it once. A process that dies after SMTP accepted and before the commit sends it once more.
CREATE TABLE public.portal_payment_emails (
  payment_id integer NOT NULL REFERENCES public.portal_payments (id) ON DELETE CASCADE,
  kind varchar(20) NOT NULL CHECK (kind IN ('pago_recibido', 'devolucion')),
  sent_at timestamptz,
  PRIMARY KEY (payment_id, kind)
);
