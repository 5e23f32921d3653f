-- Portal accounts of one customer-data schema (docs/erp.md "portal_users", docs/erp.md "Portal tables").
-- cnro ties the account to its ordcon row; dni_cuit holds the identifier's digits only.
CREATE TABLE {{schema}}.portal_users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  cnro integer NOT NULL,
  dni_cuit text NOT NULL CHECK (dni_cuit ~ '^[0-9]{7,11}$'),
  email text NOT NULL,
  telefono text,
  password_hash text NOT NULL,
  failed_login_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  last_login timestamptz,
  refresh_token text,
  refresh_token_expires timestamptz,
  reset_code_hash text,
  reset_code_expires timestamptz,
  reset_code_attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);

CREATE UNIQUE INDEX portal_users_cnro_key ON {{schema}}.portal_users (cnro);
CREATE UNIQUE INDEX portal_users_dni_cuit_key ON {{schema}}.portal_users (dni_cuit);
CREATE UNIQUE INDEX portal_users_refresh_token_key ON {{schema}}.portal_users (refresh_token)
  WHERE refresh_token IS NOT NULL;
