-- The business's say over an account (docs/staff.md "acceso"): false, the account can no longer
-- log in, refresh or use a token until staff enable it again; the customer's ERP data is
-- untouched. The session version is bumped with it, so tokens already issued end at once.
ALTER TABLE {{schema}}.portal_users ADD COLUMN acceso_habilitado boolean NOT NULL DEFAULT true;
