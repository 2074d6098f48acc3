-- 0008: the manager's pages bounded before trusted (issue 22). Each statement
-- may run again on a database that has it.
-- A manager of the pages can be disabled: no sign-in, every session ended.
ALTER TABLE managers ADD COLUMN IF NOT EXISTS disabled boolean NOT NULL DEFAULT false;

-- Wrong PINs count against where they come from, never against a manager: a
-- guesser stops only the address they type from, and any manager still signs
-- in from anywhere else. The old per-manager count and lock go.
ALTER TABLE managers DROP COLUMN IF EXISTS failed, DROP COLUMN IF EXISTS locked_until;

CREATE TABLE IF NOT EXISTS signin_guard (
    source       text PRIMARY KEY,  -- the client's IP address (IPv6: its /64), or 'command line'
    failed       int NOT NULL DEFAULT 0,  -- wrong PINs in a row
    locked_until timestamptz,            -- sign-in from source stops until then
    last_at      timestamptz NOT NULL    -- rows older than the lock's length are forgotten
);
