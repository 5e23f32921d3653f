-- When each tenant next has a checkout for the expiry job (docs/decisions.md #26). The job reads this
-- one table instead of opening a connection to every tenant database each minute: a row is
-- written when a payment starts (due = start + PORTAL_CHECKOUT_TTL_MINUTES, the earliest kept)
-- and advanced or deleted by the sweep. `version` changes on every write, so a sweep never
-- deletes the mark of a payment started while it ran.
CREATE TABLE public.portal_expiry_due (
  tenant_id integer PRIMARY KEY,
  due_at timestamptz NOT NULL,
  version bigint NOT NULL DEFAULT 1
);

CREATE INDEX portal_expiry_due_due_idx ON public.portal_expiry_due (due_at);

-- Payments started before this table existed: every tenant is visited once, then only on demand.
INSERT INTO public.portal_expiry_due (tenant_id, due_at) SELECT id, now() FROM public.tenants;
