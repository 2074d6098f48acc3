-- 0001: terminals, their enrolment codes, the events they send, alarms, and the
-- server's certificate (docs/store-schema.md).

CREATE TABLE terminals (
    id              text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
    credential_hash bytea CHECK (octet_length(credential_hash) = 32),
    state           text NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'active', 'blocked')),
    blocked_reason  text,
    last_seq        bigint NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
    last_hash       bytea CHECK (octet_length(last_hash) = 32),
    created_at      timestamptz NOT NULL DEFAULT now(),
    enrolled_at     timestamptz,
    last_seen_at    timestamptz
);

CREATE TABLE enrol_codes (
    code_hash   bytea PRIMARY KEY CHECK (octet_length(code_hash) = 32),
    terminal_id text NOT NULL REFERENCES terminals (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz
);

-- No foreign key to terminals: a batch is taken under the terminal's row lock,
-- which names a known terminal; a per-row check would cost a third of the ingest.
CREATE TABLE events (
    terminal_id text NOT NULL,
    seq         bigint NOT NULL CHECK (seq > 0),
    hash        bytea NOT NULL CHECK (octet_length(hash) = 32),
    prev_hash   bytea NOT NULL CHECK (octet_length(prev_hash) = 32),
    kind        text NOT NULL,
    day         date,
    body        jsonb NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (terminal_id, seq)
);

CREATE INDEX events_kind_day ON events (kind, day);

CREATE TABLE alarms (
    id          bigserial PRIMARY KEY,
    terminal_id text,
    kind        text NOT NULL,
    seq         bigint,
    detail      text NOT NULL,
    raised_at   timestamptz NOT NULL DEFAULT now(),
    repeats     int NOT NULL DEFAULT 1,       -- the same alarm again while open, counted, not added
    last_at     timestamptz NOT NULL DEFAULT now(),
    cleared_at  timestamptz,
    cleared_by  text
);

CREATE INDEX alarms_open ON alarms (terminal_id) WHERE cleared_at IS NULL;

CREATE TABLE request_nonces (
    terminal_id text NOT NULL,
    nonce       bytea NOT NULL,
    seen_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (terminal_id, nonce)
);

CREATE TABLE server_keys (
    name       text PRIMARY KEY,
    cert_pem   text NOT NULL,
    key_pem    text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
