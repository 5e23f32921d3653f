-- The checkout-expiry job looks for payments still in flight, oldest first; a partial index keeps
-- that lookup small however many closed payments pile up.
CREATE INDEX portal_payments_in_flight_idx ON public.portal_payments (created_at)
  WHERE status IN ('pending', 'issued');
