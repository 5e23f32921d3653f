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

-- The ERP's electronic invoices, as authorized with ARCA (docs/erp.md "The ERP's electronic
-- invoices"): the fiscal header of an ordcta FAC/ND/NC row, its lines and its IVA by rate.
CREATE TABLE IF NOT EXISTS {{schema}}.cbtefis (
  ordcta_id uuid PRIMARY KEY,
  tipo_cbte smallint NOT NULL,
  letra char(1) NOT NULL,
  punto_venta integer NOT NULL,
  numero integer NOT NULL,
  fecha date NOT NULL,
  cae varchar(14),
  cae_vto date,
  doc_tipo smallint NOT NULL,
  doc_nro varchar(20) NOT NULL,
  receptor_nombre text NOT NULL,
  receptor_domicilio text,
  receptor_cond_iva text NOT NULL,
  moneda char(3) NOT NULL DEFAULT 'PES',
  cotizacion numeric(13, 6) NOT NULL DEFAULT 1,
  neto numeric(15, 2) NOT NULL,
  iva numeric(15, 2) NOT NULL,
  exento numeric(15, 2) NOT NULL DEFAULT 0,
  tributos numeric(15, 2) NOT NULL DEFAULT 0,
  total numeric(15, 2) NOT NULL,
  asociado_ordcta_id uuid
);

CREATE TABLE IF NOT EXISTS {{schema}}.cbtefisdet (
  ordcta_id uuid NOT NULL,
  renglon integer NOT NULL,
  descripcion text NOT NULL,
  cantidad numeric(15, 4) NOT NULL,
  precio_unitario numeric(15, 4) NOT NULL,
  alicuota_iva numeric(5, 2) NOT NULL,
  importe numeric(15, 2) NOT NULL,
  PRIMARY KEY (ordcta_id, renglon)
);

CREATE TABLE IF NOT EXISTS {{schema}}.cbtefisiva (
  ordcta_id uuid NOT NULL,
  alicuota numeric(5, 2) NOT NULL,
  base numeric(15, 2) NOT NULL,
  importe numeric(15, 2) NOT NULL,
  PRIMARY KEY (ordcta_id, alicuota)
);
