-- Access tokens carry the session version they were issued under; logout, a password change or
-- reset and a refresh-token reuse bump it, so the tokens of an ended session stop working at once
-- instead of living out their hour.
ALTER TABLE {{schema}}.portal_users ADD COLUMN session_version integer NOT NULL DEFAULT 0;
