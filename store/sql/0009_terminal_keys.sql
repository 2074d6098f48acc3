-- 0009: terminals prove who they are with an Ed25519 key (docs/adr/0004):
-- the store keeps each terminal's public key only, never anything it could
-- sign with. A terminal enrolled before keeps its credential_hash until its
-- first request after this version, which moves it to a key by showing the
-- credential itself (api.RotateRequest); credential_hash is then emptied.
-- Signed requests are checked against public_key alone.

ALTER TABLE terminals
    ADD COLUMN IF NOT EXISTS public_key     bytea CHECK (octet_length(public_key) = 32),
    ADD COLUMN IF NOT EXISTS key_changed_at timestamptz;
