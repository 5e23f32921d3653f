-- The coupon sequence of each customer number (docs/decisions.md #38: barcode = tenant + cnro +
-- sequence + check digit). It lives in the tenant's public schema, not in each customer-data
-- schema, because the barcode carries no sucursal: two sucursales with their own schemas may
-- both have a customer 42, and their coupons must still get different barcodes. The row is
-- bumped with INSERT ... ON CONFLICT DO UPDATE inside the coupon's transaction, so concurrent
-- generations for one customer queue on it and a rolled-back generation gives its number back.
CREATE TABLE IF NOT EXISTS public.ledger_cupon_secuencias (
  cnro integer PRIMARY KEY,
  ultimo integer NOT NULL CHECK (ultimo >= 1)
);
