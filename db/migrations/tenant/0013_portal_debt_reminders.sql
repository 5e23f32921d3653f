-- Due-date reminders (docs/reminders.md): one row per debt and stage ('antes', 'vencido_<days>'),
-- claimed by the daily run before the e-mail is queued and marked sent (sent_at) in the
-- transaction that holds the row's lock while SMTP accepts the message, so a stage is e-mailed at
-- most once whatever the reruns, instances or crashes (a process dying after SMTP accepted and
-- before the commit sends it once more). Unsent claims are taken up again by the next run. Debt
-- ids (ordcta.id) are UUIDs, unique across the tenant's customer-data schemas; customer_schema
-- and portal_user_id say whose e-mail the claim belongs to. Rows are kept: deleting a sent one
-- would let its stage be sent again.
CREATE TABLE public.portal_debt_reminders (
  ordcta_id uuid NOT NULL,
  stage varchar(20) NOT NULL CHECK (stage ~ '^(antes|vencido_[0-9]{1,3})$'),
  customer_schema text NOT NULL,
  portal_user_id uuid NOT NULL,
  stage_date date NOT NULL,
  claimed_at timestamptz NOT NULL,
  sent_at timestamptz,
  PRIMARY KEY (ordcta_id, stage)
);

-- The send job's lookup: a recipient's claims not sent yet.
CREATE INDEX portal_debt_reminders_unsent_idx
  ON public.portal_debt_reminders (portal_user_id) WHERE sent_at IS NULL;
