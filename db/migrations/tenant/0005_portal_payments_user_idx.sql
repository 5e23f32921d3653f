-- Payment history and ownership checks look payments up by their portal user.
CREATE INDEX portal_payments_user_idx ON public.portal_payments (portal_user_id, created_at DESC);
