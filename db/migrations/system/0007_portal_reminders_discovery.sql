-- When the due-date reminders' daily discovery last finished (docs/reminders.md "Turning it on"):
-- once a day the job reads every active tenant's ini and marks in portal_reminders_due those with
-- portal.avisos.habilitado on. At start-up an instance reads this one row: a deployment that was
-- down at the discovery's hour (or has never run it) runs it soon after boot instead of waiting a
-- day. One row at most; none until the first discovery finishes.
CREATE TABLE public.portal_reminders_discovery (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  finished_at timestamptz NOT NULL
);
