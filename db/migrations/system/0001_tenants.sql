-- The system registry: which database holds each tenant (docs/erp.md "Tenancy").
CREATE TABLE IF NOT EXISTS public.tenants (
  id integer PRIMARY KEY,
  nombre text NOT NULL,
  database_url text NOT NULL,
  activo boolean NOT NULL DEFAULT true
);
