-- 0002: the projections derived from events (rebuilt by "galla store rebuild"),
-- the store-wide reservations (never rebuilt: they are decisions, not derived),
-- the manager's sign-in and the store's Z (docs/store-schema.md, ADR 0006).

-- Projections: caught up from events after each batch (per terminal, from its
-- high-water mark), truncated and replayed by Rebuild. Every row names the
-- terminal it came from.

CREATE TABLE projection_marks (
    terminal_id text PRIMARY KEY,
    seq         bigint NOT NULL DEFAULT 0   -- events 1..seq of the terminal are projected
);

CREATE TABLE orders (
    terminal_id text NOT NULL,
    order_id    text NOT NULL,
    day         date,
    paid_day    date,
    state       text NOT NULL,
    tender      text NOT NULL DEFAULT '',
    staff       text NOT NULL DEFAULT '',
    amount      bigint NOT NULL DEFAULT 0,
    captured    bigint NOT NULL DEFAULT 0,
    refunded    bigint NOT NULL DEFAULT 0,
    tax         bigint NOT NULL DEFAULT 0,
    receipt_no  bigint NOT NULL DEFAULT 0,
    card_brand  text NOT NULL DEFAULT '',
    card_last4  text NOT NULL DEFAULT '',
    phone       text NOT NULL DEFAULT '',
    opened_at   timestamptz,
    updated_at  timestamptz,
    last_seq    bigint NOT NULL,
    snapshot    jsonb NOT NULL,
    PRIMARY KEY (terminal_id, order_id)
);
CREATE INDEX orders_day ON orders (day, terminal_id);
-- The day report's reads: the day's paid orders with what it adds up, and the
-- day's orders not paid (few), so that a year of history costs nothing.
CREATE INDEX orders_paid_day ON orders (paid_day, terminal_id, tender) INCLUDE (captured, tax)
    WHERE state IN ('PAID', 'PARTLY_REFUNDED', 'REFUNDED');
CREATE INDEX orders_unpaid_day ON orders (day) INCLUDE (terminal_id, amount)
    WHERE state NOT IN ('PAID', 'PARTLY_REFUNDED', 'REFUNDED');
CREATE INDEX orders_order_id ON orders (order_id);
CREATE INDEX orders_card ON orders (card_last4) WHERE card_last4 <> '';
CREATE INDEX orders_phone ON orders (phone) WHERE phone <> '';
CREATE INDEX orders_open ON orders (terminal_id) WHERE state IN ('INTENT', 'CREATED', 'PAYING', 'AUTHENTICATING', 'UNKNOWN');

CREATE TABLE order_lines (
    terminal_id text NOT NULL,
    order_id    text NOT NULL,
    n           int NOT NULL,
    sku         text NOT NULL,
    name        text NOT NULL,
    hsn         text NOT NULL DEFAULT '',
    qty         int NOT NULL,
    unit_price  bigint NOT NULL,
    discount    bigint NOT NULL DEFAULT 0,
    gst_rate    int NOT NULL,        -- hundredths of a percent (1800 is 18%, 25 is 0.25%)
    amount      bigint NOT NULL,
    taxable     bigint NOT NULL,
    tax         bigint NOT NULL,
    imeis       text[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (terminal_id, order_id, n)
);

-- The GST of the paid orders by rate (pos.Totals.ByRate), on the day the
-- payment was confirmed: what the day report adds up.
CREATE TABLE order_rates (
    terminal_id text NOT NULL,
    order_id    text NOT NULL,
    rate        int NOT NULL,        -- hundredths of a percent
    paid_day    date NOT NULL,
    amount      bigint NOT NULL,
    taxable     bigint NOT NULL,
    tax         bigint NOT NULL,
    cgst        bigint NOT NULL,
    sgst        bigint NOT NULL,
    PRIMARY KEY (terminal_id, order_id, rate)
);
CREATE INDEX order_rates_day ON order_rates (paid_day, terminal_id, rate) INCLUDE (amount, taxable, tax, cgst, sgst);

CREATE TABLE payments (
    terminal_id text NOT NULL,
    seq         bigint NOT NULL,
    order_id    text NOT NULL,
    kind        text NOT NULL,       -- the event kind: payment.outcome, cash.received, refund.done
    tender      text NOT NULL DEFAULT '', -- the order's
    day         date,
    amount      bigint NOT NULL,     -- paise; a refund is positive here, kind says it goes out
    status      text NOT NULL DEFAULT '',
    payment_id  text NOT NULL DEFAULT '',
    card_last4  text NOT NULL DEFAULT '',
    PRIMARY KEY (terminal_id, seq)
);
CREATE INDEX payments_order ON payments (terminal_id, order_id);
CREATE INDEX payments_day ON payments (day, kind) INCLUDE (terminal_id, tender, amount);

CREATE TABLE documents (
    terminal_id text NOT NULL,
    number      text NOT NULL,       -- as printed: T1/000123 for a receipt number
    kind        text NOT NULL,       -- receipt
    order_id    text NOT NULL,
    day         date,
    amount      bigint NOT NULL,
    PRIMARY KEY (terminal_id, number)
);
CREATE INDEX documents_number ON documents (number);
CREATE INDEX documents_order ON documents (terminal_id, order_id);

CREATE TABLE credit_notes (
    number      text PRIMARY KEY,
    terminal_id text NOT NULL,
    order_id    text NOT NULL DEFAULT '',
    day         date,
    value       bigint NOT NULL
);

CREATE TABLE imei_units (
    imei        text NOT NULL,
    terminal_id text NOT NULL,
    order_id    text NOT NULL,
    day         date,
    sku         text NOT NULL DEFAULT '',
    PRIMARY KEY (imei, terminal_id, order_id)
);

CREATE TABLE shifts (
    terminal_id text NOT NULL,
    shift_id    text NOT NULL,
    staff       text NOT NULL DEFAULT '',
    opened_at   timestamptz,
    closed_at   timestamptz,
    PRIMARY KEY (terminal_id, shift_id)
);

CREATE TABLE z_reports (
    terminal_id   text NOT NULL,
    day           date NOT NULL,
    z_no          bigint NOT NULL,
    seq           bigint NOT NULL,
    gross         bigint NOT NULL,
    refunded      bigint NOT NULL,
    net           bigint NOT NULL,
    cash_expected bigint NOT NULL,
    tax           bigint NOT NULL,
    unknown_count int NOT NULL,
    report        jsonb NOT NULL,
    PRIMARY KEY (terminal_id, day)
);
CREATE INDEX z_reports_day ON z_reports (day);

CREATE TABLE overrides (
    terminal_id text NOT NULL,
    seq         bigint NOT NULL,
    day         date,
    staff       text NOT NULL DEFAULT '',
    what        text NOT NULL DEFAULT '',
    detail      jsonb NOT NULL,
    PRIMARY KEY (terminal_id, seq)
);
CREATE INDEX overrides_day ON overrides (day);

-- Store-wide reservations: decided here, before money moves, and never
-- truncated by a rebuild.

CREATE TABLE imei_reservations (
    imei        text PRIMARY KEY CHECK (imei ~ '^[0-9]{15}$'),
    terminal_id text NOT NULL,
    order_id    text NOT NULL,
    reserved_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE credit_note_balances (
    number      text PRIMARY KEY,
    terminal_id text NOT NULL,
    value       bigint NOT NULL CHECK (value > 0),
    redeemed    bigint NOT NULL DEFAULT 0,
    CHECK (redeemed >= 0 AND redeemed <= value)
);

CREATE TABLE credit_note_redemptions (
    number      text NOT NULL REFERENCES credit_note_balances (number),
    terminal_id text NOT NULL,
    order_id    text NOT NULL,
    amount      bigint NOT NULL CHECK (amount > 0),
    reserved_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (number, terminal_id, order_id)
);

CREATE TABLE return_reservations (
    sold_terminal text NOT NULL,
    sold_order    text NOT NULL,
    terminal_id   text NOT NULL,
    refund_id     text NOT NULL,
    amount        bigint NOT NULL CHECK (amount > 0),
    settled       boolean NOT NULL DEFAULT false, -- its refund.done arrived: counted in orders.refunded
    reserved_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (terminal_id, refund_id)
);
CREATE INDEX return_reservations_sold ON return_reservations (sold_terminal, sold_order);

-- The manager's pages: their own managers (the terminals' PIN hashes are
-- peppered with a key only the terminal holds) and sessions in the database.

CREATE TABLE managers (
    name         text PRIMARY KEY CHECK (name ~ '^[A-Za-z][A-Za-z0-9 ._-]{0,39}$'),
    pin_hash     bytea NOT NULL,
    salt         bytea NOT NULL,
    failed       int NOT NULL DEFAULT 0,
    locked_until timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE manager_sessions (
    token_hash bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    manager    text NOT NULL REFERENCES managers (name) ON DELETE CASCADE,
    csrf       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);

-- The store's Z: sealed once, the sum of the counters' Z reports.

CREATE TABLE store_z (
    day       date PRIMARY KEY,
    report    jsonb NOT NULL,
    closed_by text NOT NULL,
    closed_at timestamptz NOT NULL DEFAULT now()
);

-- Master data down: versioned at the server; a terminal asks for what changed
-- since the version it applied. The newest row of a kind is the current one.

CREATE TABLE master_data (
    version      bigserial PRIMARY KEY,
    kind         text NOT NULL CHECK (kind IN ('catalog', 'shop')),
    body         jsonb NOT NULL,
    published_by text NOT NULL,
    published_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX master_data_kind ON master_data (kind, version);
