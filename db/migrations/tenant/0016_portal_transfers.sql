-- Bank transfers (docs/transfers.md): each customer record's own account at the collection
-- provider, and every credit the provider reported, once.
--
-- An account names a customer record (cnro in its sucursal's customer-data schema), not a portal
-- account: it is the same whichever portal account asks, and survives a new registration.
-- `customer_id` is what the portal called the customer at the provider; a row is written only
-- once the provider assigned the account, under an advisory lock per customer record, so two
-- requests (or two instances) never assign two.
CREATE TABLE public.portal_transfer_accounts (
  id bigserial PRIMARY KEY,
  tenant_id integer NOT NULL,
  provider varchar(20) NOT NULL,
  sucursal_id integer NOT NULL,
  customer_schema varchar(63) NOT NULL,
  cnro integer NOT NULL,
  customer_id varchar(64) NOT NULL,
  cvu varchar(22) NOT NULL,
  alias varchar(64),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, provider, customer_schema, cnro),
  UNIQUE (tenant_id, provider, customer_id),
  UNIQUE (tenant_id, provider, cvu)
);

-- A credit as the provider reports it when read back (never as a webhook's body says), unique by
-- the provider's id: duplicates, redeliveries, instances and the janitor record it once.
-- `estado`: `pendiente` (recorded, not applied yet), `aplicada` (its receipt written),
-- `sin_cliente` (waits for a person: `motivo` says why), `revertida` (the provider rejected it
-- after its receipt), `rechazada` (rejected before anything was written). `recibo_id` is the
-- receipt in the customer-data schema of `customer_schema`.
CREATE TABLE public.portal_transfer_credits (
  id bigserial PRIMARY KEY,
  tenant_id integer NOT NULL,
  provider varchar(20) NOT NULL,
  credit_id varchar(100) NOT NULL,
  trace_id varchar(100),
  cuenta varchar(64),
  provider_customer_id varchar(64),
  monto numeric(15, 2) NOT NULL,
  moneda varchar(3) NOT NULL,
  recibida_at timestamptz,
  provider_status varchar(20) NOT NULL,
  estado varchar(20) NOT NULL CHECK (
    estado IN ('pendiente', 'aplicada', 'sin_cliente', 'revertida', 'rechazada')
  ),
  motivo text,
  detalle text,
  sucursal_id integer,
  customer_schema varchar(63),
  cnro integer,
  recibo_id uuid,
  a_cuenta numeric(15, 2),
  ordenante_nombre text,
  ordenante_cuit varchar(20),
  ordenante_banco text,
  liquidada_at timestamptz,
  asignada_por text,
  email_sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, provider, credit_id)
);

-- The console's Atención, a customer's receipts (by receipt id) and the janitor find credits by
-- these.
CREATE INDEX portal_transfer_credits_attention_idx
  ON public.portal_transfer_credits (tenant_id, created_at)
  WHERE estado IN ('sin_cliente', 'revertida');
CREATE INDEX portal_transfer_credits_recibo_idx
  ON public.portal_transfer_credits (recibo_id)
  WHERE recibo_id IS NOT NULL;
CREATE INDEX portal_transfer_credits_pending_idx
  ON public.portal_transfer_credits (tenant_id, id)
  WHERE estado = 'pendiente';
-- The e-mails the janitor finds unsent (a process that stopped between the receipt and its job).
CREATE INDEX portal_transfer_credits_unsent_idx
  ON public.portal_transfer_credits (tenant_id, id)
  WHERE estado = 'aplicada' AND email_sent_at IS NULL;

-- The webhook address (and the SHA-256 of its header's value) last registered with each
-- tenant's provider: the janitor registers again only when either changed.
CREATE TABLE public.portal_transfer_webhooks (
  tenant_id integer NOT NULL,
  provider varchar(20) NOT NULL,
  url text NOT NULL,
  token_sha256 char(64) NOT NULL,
  registered_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, provider)
);
