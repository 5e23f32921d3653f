-- What receipts applied to one debt (recfac by factura_id): a debt's original amount, which the
-- debts list and the receipts answer beside what is left of it ("Resta $ 20.000,00 de
-- $ 38.500,00", docs/decisions.md #51). recfac's primary key starts with recibo_id, so without
-- this every debt would scan the table. The receipt's id and the amount are included: an
-- index-only scan. Only an index, named portal_*, like 0002; on a very large ledger create it
-- beforehand with CREATE INDEX CONCURRENTLY under this name, and IF NOT EXISTS then leaves it
-- alone.
CREATE INDEX IF NOT EXISTS portal_recfac_factura_idx
  ON {{schema}}.recfac (factura_id) INCLUDE (recibo_id, monto);
