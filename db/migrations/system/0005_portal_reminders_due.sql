-- Which tenants have due-date reminders on, and when each one's next daily run is due
-- (docs/reminders.md): the reminders job reads this one table instead of opening a connection to
-- every tenant database to read its ini. A row is written by `cli avisos activar` (or `avisos
-- enviar --tenant`) when the tenant's portal.avisos.habilitado is on, moved to the next run at
-- portal.avisos.hora in the tenant's zone after each run, and deleted by the run that finds
-- reminders off. `version` changes on every write, so a run never undoes a mark written while it
-- ran. No rows are created here: the ini of a tenant is only read when an operator asks.
CREATE TABLE public.portal_reminders_due (
  tenant_id integer PRIMARY KEY,
  due_at timestamptz NOT NULL,
  version bigint NOT NULL DEFAULT 1
);

CREATE INDEX portal_reminders_due_due_idx ON public.portal_reminders_due (due_at);
