-- The per-account cap on reset-code requests (docs/decisions.md #13: 3 an hour) kept in the account's
-- own row. The Redis counter fails open while Redis is down; this one cannot, so an outage never
-- turns into unlimited fresh codes (each with 5 tries) or a flooded mailbox. A fixed window:
-- reset_window_start is the first counted request, reset_requests the count within that hour.
ALTER TABLE {{schema}}.portal_users
  ADD COLUMN reset_requests integer NOT NULL DEFAULT 0,
  ADD COLUMN reset_window_start timestamptz;
