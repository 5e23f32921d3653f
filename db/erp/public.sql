CREATE TABLE IF NOT EXISTS public.sucursales (
  id integer PRIMARY KEY,
  nombre text NOT NULL,
  clientes_centralizados boolean NOT NULL DEFAULT false
);

CREATE TABLE IF NOT EXISTS public.ini (
  clave text PRIMARY KEY,
  valor text
);

-- The issuer of the ERP's electronic invoices (docs/erp.md "The ERP's electronic invoices"), one row.
CREATE TABLE IF NOT EXISTS public.empfiscal (
  cuit varchar(11) NOT NULL,
  razon_social text NOT NULL,
  domicilio text NOT NULL,
  cond_iva text NOT NULL,
  iibb text,
  inicio_actividades date NOT NULL
);
