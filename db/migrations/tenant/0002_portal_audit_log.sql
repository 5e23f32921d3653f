-- Authentication audit trail (docs/api.md "Audit logging", docs/decisions.md #17).
CREATE TABLE public.portal_audit_log (
  id bigserial PRIMARY KEY,
  tenant_id integer NOT NULL,
  sucursal_id integer,
  portal_user_id uuid,
  ip text,
  user_agent text,
  event text NOT NULL,
  details jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX portal_audit_log_user_idx ON public.portal_audit_log (portal_user_id, created_at);
CREATE INDEX portal_audit_log_event_idx ON public.portal_audit_log (event, created_at);
