CREATE SCHEMA IF NOT EXISTS {{schema}};

CREATE TABLE IF NOT EXISTS {{schema}}.ordcon (
  cnro integer PRIMARY KEY,
  cnom text NOT NULL,
  ccui text NOT NULL
);

CREATE TABLE IF NOT EXISTS {{schema}}.ordcta (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  cnro integer NOT NULL,
  tipo text NOT NULL,
  comprobante text NOT NULL,
  nrocomp text NOT NULL,
  fecha date NOT NULL,
  vencimiento date,
  debe numeric(15, 2) NOT NULL DEFAULT 0,
  haber numeric(15, 2) NOT NULL DEFAULT 0,
  saldo numeric(15, 2) NOT NULL DEFAULT 0,
  anulado boolean NOT NULL DEFAULT false
);

CREATE INDEX IF NOT EXISTS ordcta_cnro_idx ON {{schema}}.ordcta (cnro);

CREATE TABLE IF NOT EXISTS {{schema}}.recfac (
  recibo_id uuid NOT NULL,
  factura_id uuid NOT NULL,
  monto numeric(15, 2) NOT NULL,
  PRIMARY KEY (recibo_id, factura_id)
);

CREATE TABLE IF NOT EXISTS {{schema}}.numeradores (
  tipo text NOT NULL,
  punto_venta integer NOT NULL,
  ultimo bigint NOT NULL,
  PRIMARY KEY (tipo, punto_venta)
);
