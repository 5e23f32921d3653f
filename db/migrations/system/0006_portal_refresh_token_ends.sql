-- Why a refresh token's session ended (docs/authentication.md "Refresh grace and session ends"):
-- instead of deleting a user's entries when the session ends, each one is marked with the reason,
-- so a token of that session presented later is refused saying why (another login, a logout, a
-- password change or reset, a detected reuse). The entries of an ended session are refused before
-- anything else: they never count as reuse and never get the refresh grace. Entries are still
-- swept once expired (a week after, so an expired session can be told apart from a token that was
-- never issued).
ALTER TABLE public.portal_refresh_tokens
  ADD COLUMN ended_reason text
    CHECK (ended_reason IN ('login', 'logout', 'password_change', 'password_reset', 'reuse'));
