-- The store's staff (issue 15, ADR 0007): members added at the store sign in
-- at every counter. A member's PIN is kept as argon2id of HMAC-SHA256(store
-- pepper, PIN) with a salt, never the PIN; the store pepper is the row
-- 'staff-pepper' of server_keys, handed to each terminal over the pinned link
-- and kept in its keyring. Every change is also a master_data row of kind
-- 'staff' keyed by the member's id, which the terminals fetch and journal.
CREATE TABLE store_staff (
    id         text PRIMARY KEY,          -- 'S001': never a counter's own id
    name       text NOT NULL,
    role       text NOT NULL CHECK (role IN ('cashier', 'manager')),
    disabled   boolean NOT NULL DEFAULT false,
    record     jsonb NOT NULL,            -- the member as a terminal journals it (pos.Staff)
    version    bigint NOT NULL,           -- the master_data version of its last change
    updated_by text NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX store_staff_name ON store_staff (lower(name));
CREATE SEQUENCE store_staff_no;

-- Master data of a kind with many items (one per member) is keyed: a terminal
-- gets the newest item of each (kind, key).
ALTER TABLE master_data ADD COLUMN key text NOT NULL DEFAULT '';
ALTER TABLE master_data DROP CONSTRAINT master_data_kind_check;
ALTER TABLE master_data ADD CONSTRAINT master_data_kind_check CHECK (kind IN ('catalog', 'shop', 'staff'));
DROP INDEX master_data_kind;
CREATE INDEX master_data_kind ON master_data (kind, key, version);
