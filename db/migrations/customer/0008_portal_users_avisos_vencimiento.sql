-- The customer's choice about due-date reminders (docs/reminders.md): on unless they turn it off
-- in PUT /portal/perfil or with the one-click link every reminder carries (RFC 8058).
ALTER TABLE {{schema}}.portal_users ADD COLUMN avisos_vencimiento boolean NOT NULL DEFAULT true;
