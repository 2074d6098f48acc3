-- 0016: the store key (issue 22, docs/security.md). The buyers' details are
-- sealed with a data key kept outside PostgreSQL (the store server's keyring,
-- or a file of mode 0600), and the staff's and managers' PIN peppers are kept
-- with it, not in server_keys: a copy of the database yields no buyer and
-- tests no PIN. This table holds only a check of the key (an HMAC of a label
-- under the data key), which tells this database's key from another, and when
-- the rows written in clear before the key were sealed in place. At the first
-- start with the key, the program seals those rows in batches and deletes the
-- peppers' rows of server_keys (store/key.go).
CREATE TABLE IF NOT EXISTS store_key (
    one       boolean PRIMARY KEY DEFAULT true CHECK (one),
    check_mac bytea NOT NULL CHECK (octet_length(check_mac) = 32),
    made_at   timestamptz NOT NULL DEFAULT now(),
    sealed_at timestamptz   -- the rows written in clear were sealed in place
);

-- A buyer's phone is searched by a keyed digest under the data key (never the
-- number): filled as orders are projected, and by the sealing in place.
ALTER TABLE orders ADD COLUMN IF NOT EXISTS buyer_phone text NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS orders_buyer_phone ON orders (buyer_phone) WHERE buyer_phone <> '';
