-- When each tenant next has idempotency keys to prune (docs/api.md "Idempotency-Key"), the same
-- way portal_expiry_due serves the checkout expiry: the hourly prune job reads this one table
-- instead of connecting to every tenant database. A row is written when a key is claimed (due =
-- its created_at + 24 hours, the earliest kept) and advanced or deleted by the prune; `version`
-- changes on every write, so a prune never deletes the mark of a key claimed while it ran.
CREATE TABLE public.portal_idempotency_due (
  tenant_id integer PRIMARY KEY,
  due_at timestamptz NOT NULL,
  version bigint NOT NULL DEFAULT 1
);

CREATE INDEX portal_idempotency_due_due_idx ON public.portal_idempotency_due (due_at);
