-- A payment started from a pay link (docs/pay-links.md): the link's id in the system database's
-- portal_pay_links. The historial and the console say "pagado con enlace"; a pay link's token
-- reads only such payments of its account.
ALTER TABLE public.portal_payments ADD COLUMN pay_link_id bigint;
