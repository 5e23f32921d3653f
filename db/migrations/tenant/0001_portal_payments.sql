-- docs/erp.md "portal_payments", in its final shape (the 2026-04..05 history collapsed into one step).
-- portal_user_id is a uuid without a foreign key: users live in per-branch schemas (docs/decisions.md #4).
CREATE TABLE public.portal_payments (
  id serial PRIMARY KEY,
  portal_user_id uuid NOT NULL,
  ordcon_id integer,
  tenant_id integer NOT NULL,
  sucursal_id integer NOT NULL,
  gateway varchar(50),
  currency varchar(10) DEFAULT 'ARS',
  monto numeric(15, 2),
  status varchar(20) NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'issued', 'approved', 'rejected', 'refunded', 'cancelled')),
  gateway_response jsonb,
  facturas_json jsonb NOT NULL,
  gateway_payment_id varchar(255),
  reference varchar(255),
  recibo_id varchar(36),
  recibo_at timestamptz,
  recibo_error text,
  refund_id varchar(64),
  issued_at timestamptz,
  approved_at timestamptz,
  rejected_at timestamptz,
  refunded_at timestamptz,
  cancelled_at timestamptz,
  created_at timestamp NOT NULL DEFAULT now(),
  updated_at timestamp
);

CREATE INDEX portal_payments_ordcon_id_idx ON public.portal_payments (ordcon_id);
CREATE INDEX portal_payments_status_idx ON public.portal_payments (status);
CREATE INDEX portal_payments_gateway_idx ON public.portal_payments (gateway);
CREATE UNIQUE INDEX portal_payments_reference_idx ON public.portal_payments (reference);
CREATE INDEX portal_payments_gateway_payment_id_idx ON public.portal_payments (gateway_payment_id);
