-- An invitation's e-mail went out (docs/pay-links.md "Invitations"): set in the transaction that
-- holds the invitation's row lock once SMTP accepted the message, so a job that runs again (pg-boss
-- retrying one that died after sending) finds it sent and stops, and two jobs never send beside
-- each other.
ALTER TABLE public.portal_invitations ADD COLUMN sent_at timestamptz;
