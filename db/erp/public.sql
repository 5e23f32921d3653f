CREATE TABLE IF NOT EXISTS public.sucursales (
  id integer PRIMARY KEY,
  nombre text NOT NULL,
  clientes_centralizados boolean NOT NULL DEFAULT false
);

CREATE TABLE IF NOT EXISTS public.ini (
  clave text PRIMARY KEY,
  valor text
);
