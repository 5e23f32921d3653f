-- The sandbox gateway's own records (development and demos): what a real gateway would keep on
-- its side. Kept in the tenant database so every API instance sees the same checkout.
CREATE TABLE public.portal_sandbox_payments (
  id uuid PRIMARY KEY,
  reference varchar(255) NOT NULL,
  amount numeric(15, 2) NOT NULL,
  description text NOT NULL,
  status varchar(20) NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled', 'refunded')),
  notification_url text NOT NULL,
  back_urls jsonb NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);

CREATE INDEX portal_sandbox_payments_reference_idx ON public.portal_sandbox_payments (reference);
