-- What the business's staff did at the console (docs/staff.md "Audit"; docs/decisions.md #42):
-- one row per action, with who (the administrative system's `sub` and `nombre`), what
-- (`accion`, its object), why (`motivo`) and from where (the IP). Append-only for the portal:
-- no route or command updates or deletes a row, and the trigger below refuses it to any session
-- that tries (an operator who must prune it drops the trigger deliberately, in a shell).
CREATE TABLE public.portal_staff_audit (
  id bigserial PRIMARY KEY,
  tenant_id integer NOT NULL,
  sub varchar(100) NOT NULL,
  nombre varchar(200),
  accion varchar(40) NOT NULL,
  objeto varchar(200) NOT NULL,
  motivo varchar(500),
  ip text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- GET /portal/comercio/auditoria: a tenant's newest first.
CREATE INDEX portal_staff_audit_tenant_idx
  ON public.portal_staff_audit (tenant_id, created_at DESC, id DESC);

CREATE FUNCTION public.portal_staff_audit_append_only() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'portal_staff_audit is append-only';
END;
$$;

CREATE TRIGGER portal_staff_audit_append_only
  BEFORE UPDATE OR DELETE ON public.portal_staff_audit
  FOR EACH ROW EXECUTE FUNCTION public.portal_staff_audit_append_only();

-- The console's payment list: a tenant's payments newest first, and its filters.
CREATE INDEX portal_payments_tenant_created_idx
  ON public.portal_payments (tenant_id, created_at DESC, id DESC);

-- What the console counts as collected: a tenant's approvals by their time.
CREATE INDEX portal_payments_tenant_approved_idx
  ON public.portal_payments (tenant_id, approved_at) WHERE status = 'approved';

-- What needs a person: approvals still without a receipt (few; in flight ones have their index).
CREATE INDEX portal_payments_without_receipt_idx
  ON public.portal_payments (tenant_id, created_at) WHERE status = 'approved' AND recibo_id IS NULL;
