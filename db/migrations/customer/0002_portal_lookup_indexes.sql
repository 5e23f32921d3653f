-- Indexes for the portal's lookup paths on ERP tables. Only indexes, named portal_*: the tables,
-- their columns and constraints stay the ERP's. On a very large ledger, create them beforehand
-- with CREATE INDEX CONCURRENTLY under these names; IF NOT EXISTS then leaves them alone.

-- Pending debts of a customer, already in FIFO order (debts list, account summary, payments).
CREATE INDEX IF NOT EXISTS portal_ordcta_pending_idx
  ON {{schema}}.ordcta (cnro, vencimiento, fecha, nrocomp)
  WHERE tipo IN ('FAC', 'ND') AND saldo > 0 AND NOT anulado;

-- The customer's newest receipt (account summary's last payment).
CREATE INDEX IF NOT EXISTS portal_ordcta_receipts_idx
  ON {{schema}}.ordcta (cnro, fecha DESC, nrocomp DESC)
  WHERE tipo = 'REC' AND NOT anulado;

-- Registration finds the customer by the digits of ccui, stored with or without dashes.
CREATE INDEX IF NOT EXISTS portal_ordcon_ccui_digits_idx
  ON {{schema}}.ordcon ((regexp_replace(ccui, '[^0-9]', '', 'g')));
