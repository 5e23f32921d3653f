-- The statement of account (GET /portal/estado-cuenta, docs/erp.md "The statement of account"):
-- a customer's non-voided ledger rows by date. Its opening balance sums every row before the
-- period, the customer's whole history, so the index also holds what that sum needs (type,
-- amounts, id for the receipts' recfac links): an index-only scan reads a few index pages
-- instead of one table page per row of a ledger where many customers' rows interleave. The
-- customer's receipts (tipo = 'REC') are read from it too. Only an index, named portal_*, like
-- 0002; on a very large ledger create it beforehand with CREATE INDEX CONCURRENTLY under this
-- name, and IF NOT EXISTS then leaves it alone.
CREATE INDEX IF NOT EXISTS portal_ordcta_statement_idx
  ON {{schema}}.ordcta (cnro, fecha) INCLUDE (tipo, debe, haber, id)
  WHERE NOT anulado;
