-- A payment e-mail is claimed for one sender for a while (lease_until) instead of a row lock held
-- in a transaction while SMTP answers (docs/payments.md "Payment e-mails"): the claim, the send and
-- the sent mark are three statements, and no tenant connection waits on the mail server. A job that
-- finds the e-mail claimed by another tries again later; a claim whose sender died expires. A
-- process that dies after SMTP accepted and before the mark still sends it once more.
ALTER TABLE public.portal_payment_emails ADD COLUMN lease_until timestamptz;
