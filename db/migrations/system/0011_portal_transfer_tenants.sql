-- The tenants whose bank-transfer rail was found on (docs/transfers.md "The janitor"): the
-- janitor's round visits only these, so a deployment of a thousand tenants without transfers
-- opens no tenant connection every five minutes. A tenant is marked when a customer's CVU is
-- first asked for (no credit can arrive at an account before it exists) and unmarked by the
-- round that finds its rail off.
CREATE TABLE public.portal_transfer_tenants (
  tenant_id integer PRIMARY KEY,
  marked_at timestamptz NOT NULL DEFAULT now()
);
