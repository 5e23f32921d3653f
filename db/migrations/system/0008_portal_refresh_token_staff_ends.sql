-- Two more reasons a session ends (docs/staff.md): the business's staff ended the account's
-- sessions ('staff'), or disabled the account ('disabled'); a token of such a session is refused
-- saying so.
ALTER TABLE public.portal_refresh_tokens
  DROP CONSTRAINT portal_refresh_tokens_ended_reason_check,
  ADD CONSTRAINT portal_refresh_tokens_ended_reason_check
    CHECK (ended_reason IN ('login', 'logout', 'password_change', 'password_reset', 'reuse',
                            'staff', 'disabled'));
