-- Idempotency-Key on POST /portal/pagos/iniciar and POST /portal/cupones/generar (docs/api.md
-- "Idempotency-Key"). One row per portal user, route and key: claimed `in_progress` (locked_at
-- set) by the one request that runs the operation, then `done` with the answer it gave, which
-- later requests with the same key and body replay. The record is the lock, in PostgreSQL, so it
-- holds across API instances. Times come from the application's clock, not now(), like the
-- checkout's: a key older than 24 hours counts as new, and the prune job deletes it.
CREATE TABLE public.portal_idempotency_keys (
  portal_user_id uuid NOT NULL,
  route varchar(40) NOT NULL,
  idempotency_key varchar(255) NOT NULL,
  -- sha256 (hex) of the canonical JSON body and the headers that shape the answer (iniciar: Origin).
  request_hash char(64) NOT NULL,
  status varchar(12) NOT NULL CHECK (status IN ('in_progress', 'done')),
  -- When the running request claimed the key; a claim older than the lock's life is a dead
  -- process's and may be taken over.
  locked_at timestamptz,
  response_status smallint,
  -- The JSON answer exactly as it was sent.
  response_body text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (portal_user_id, route, idempotency_key),
  CHECK (status = 'in_progress' AND locked_at IS NOT NULL
         OR status = 'done' AND response_status IS NOT NULL AND response_body IS NOT NULL)
);

-- The prune job's range scan (created_at older than 24 hours).
CREATE INDEX portal_idempotency_keys_created_idx ON public.portal_idempotency_keys (created_at);
