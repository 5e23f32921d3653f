-- Print settings of a portal user for the QZ Tray print agent (docs/decisions.md #40): which printer,
-- paper and number of copies to use for each kind of document. They belong to the portal user,
-- so they live beside portal_users in the customer-data schema and go away with the account.
CREATE TABLE {{schema}}.portal_print_config (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  portal_user_id uuid NOT NULL REFERENCES {{schema}}.portal_users (id) ON DELETE CASCADE,
  documento text NOT NULL CHECK (documento IN ('recibo', 'cupon')),
  impresora text NOT NULL CHECK (length(impresora) BETWEEN 1 AND 255 AND btrim(impresora) <> ''),
  papel text NOT NULL CHECK (papel IN ('A4', 'carta', '80mm')),
  copias smallint NOT NULL DEFAULT 1 CHECK (copias BETWEEN 1 AND 5),
  predeterminada boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);

CREATE INDEX portal_print_config_user_idx
  ON {{schema}}.portal_print_config (portal_user_id, documento, created_at);

-- At most one default per user and documento. The service clears the previous default in the
-- same transaction; this index is the guarantee if anything else ever writes the table.
CREATE UNIQUE INDEX portal_print_config_default_key
  ON {{schema}}.portal_print_config (portal_user_id, documento)
  WHERE predeterminada;
