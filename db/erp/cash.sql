CREATE SCHEMA IF NOT EXISTS {{schema}};

CREATE TABLE IF NOT EXISTS {{schema}}.movimi (
  id bigserial PRIMARY KEY,
  fecha timestamptz NOT NULL DEFAULT now(),
  tipo text NOT NULL,
  cuenta_bancaria text NOT NULL,
  monto numeric(15, 2) NOT NULL,
  concepto text,
  ordcta_id uuid,
  cnro integer
);
