-- Pay links (docs/pay-links.md; docs/decisions.md #44-45): a link names one portal account and is
-- exchanged for a 15-minute access token that may only pay. The exchange carries only the token,
-- so, like the refresh tokens, the links live here, where a token finds its tenant, sucursal and
-- account. Only the token's SHA-256 is kept. Why it was made: a reminder ('aviso'), the customer
-- sharing it ('cliente'), staff at the console ('comercio').
CREATE TABLE public.portal_pay_links (
  id bigserial PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  tenant_id integer NOT NULL,
  sucursal_id integer NOT NULL,
  portal_user_id uuid NOT NULL,
  motivo varchar(20) NOT NULL CHECK (motivo IN ('aviso', 'cliente', 'comercio')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  last_used_at timestamptz,
  uses integer NOT NULL DEFAULT 0
);

-- An account's live links (the customer's list, and revoking them all).
CREATE INDEX portal_pay_links_account_idx
  ON public.portal_pay_links (tenant_id, portal_user_id) WHERE revoked_at IS NULL;

-- Invitations (docs/pay-links.md "Invitations"; decision 46): the business invites a customer of
-- the ERP without an account; registering from it spends it. Registration carries only the
-- token, so they live here too, hashed. One live invitation per customer: a new one replaces it.
CREATE TABLE public.portal_invitations (
  id bigserial PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  tenant_id integer NOT NULL,
  sucursal_id integer NOT NULL,
  customer_schema text NOT NULL,
  cnro integer NOT NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  opened_at timestamptz,
  registered_at timestamptz,
  replaced_at timestamptz
);

CREATE UNIQUE INDEX portal_invitations_live_idx
  ON public.portal_invitations (tenant_id, customer_schema, cnro)
  WHERE registered_at IS NULL AND replaced_at IS NULL;
CREATE INDEX portal_invitations_tenant_idx ON public.portal_invitations (tenant_id, created_at DESC);
