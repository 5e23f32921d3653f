-- Where each refresh token's session lives. The refresh request carries only the token
-- (docs/api.md), so this index routes it to its tenant database and branch schema; the session
-- itself is portal_users.refresh_token there. Tokens are stored as SHA-256 (docs/decisions.md #11).
-- A rotated-away token stays (rotated_at set) until it expires, so its reuse is recognised.
CREATE TABLE public.portal_refresh_tokens (
  token_hash text PRIMARY KEY,
  tenant_id integer NOT NULL,
  sucursal_id integer NOT NULL,
  portal_user_id uuid NOT NULL,
  expires_at timestamptz NOT NULL,
  rotated_at timestamptz
);

CREATE INDEX portal_refresh_tokens_user_idx ON public.portal_refresh_tokens (tenant_id, portal_user_id);
CREATE INDEX portal_refresh_tokens_expires_idx ON public.portal_refresh_tokens (expires_at);
