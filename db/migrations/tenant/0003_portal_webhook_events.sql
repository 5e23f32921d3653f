-- One row per gateway notification id (x-request-id): a repeated delivery is recognised (docs/decisions.md #29).
CREATE TABLE public.portal_webhook_events (
  request_id text PRIMARY KEY,
  tenant_id integer NOT NULL,
  sucursal_id integer NOT NULL,
  gateway varchar(50),
  payment_id integer,
  received_at timestamptz NOT NULL DEFAULT now()
);
