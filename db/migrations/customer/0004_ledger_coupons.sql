-- The account-ledger module's payment coupons (docs/api.md "Coupons", docs/decisions.md #36 and 38).
-- The ERP's coupon module is absent here, so the ledger stand-in keeps its own tables in the
-- customer-data schema; the portal has no coupon table and reaches these only through
-- src/ledger/coupons. Stored estado is pending, used or cancelled: expired is computed on read
-- (fecha_vencimiento before the tenant's today), so it never needs a job to flip it.
-- IF NOT EXISTS: a schema where the ledger's tables already exist is left as it is.
CREATE TABLE IF NOT EXISTS {{schema}}.ledger_cupones (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  codigo_barras varchar(19) NOT NULL CHECK (codigo_barras ~ '^[0-9]{19}$'),
  cnro integer NOT NULL CHECK (cnro BETWEEN 0 AND 99999999),
  secuencia integer NOT NULL CHECK (secuencia BETWEEN 1 AND 999999),
  sucursal_id integer NOT NULL,
  monto numeric(15, 2) NOT NULL CHECK (monto > 0),
  estado varchar(20) NOT NULL DEFAULT 'pending'
    CHECK (estado IN ('pending', 'used', 'cancelled')),
  fecha_generacion date NOT NULL,
  fecha_vencimiento date NOT NULL CHECK (fecha_vencimiento > fecha_generacion),
  used_at timestamptz,
  cancelled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);

CREATE UNIQUE INDEX IF NOT EXISTS ledger_cupones_codigo_barras_key
  ON {{schema}}.ledger_cupones (codigo_barras);
-- One coupon per sequence number of a customer; also the customer's listing, newest first.
CREATE UNIQUE INDEX IF NOT EXISTS ledger_cupones_cnro_secuencia_key
  ON {{schema}}.ledger_cupones (cnro, secuencia);

-- The debts a coupon pays and how much of each. factura_id is the ledger row's id, kept without
-- a foreign key: the ERP owns those rows (the portal's migrations never alter its tables).
CREATE TABLE IF NOT EXISTS {{schema}}.ledger_cupon_facturas (
  cupon_id uuid NOT NULL REFERENCES {{schema}}.ledger_cupones (id) ON DELETE CASCADE,
  factura_id uuid NOT NULL,
  orden smallint NOT NULL,
  tipo text NOT NULL,
  numero text NOT NULL,
  monto numeric(15, 2) NOT NULL CHECK (monto > 0),
  PRIMARY KEY (cupon_id, factura_id)
);
