-- The login before the current one (GET /portal/auth/me `ingreso_anterior`): a successful login
-- moves last_login here in the same statement that sets the new one, so "Último ingreso" can show
-- the customer's previous visit rather than the login just made (`last_login` keeps the spec's
-- meaning).
ALTER TABLE {{schema}}.portal_users ADD COLUMN ingreso_anterior timestamptz;
