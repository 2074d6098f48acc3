-- Stock by IMEI (issue 26): every counter's goods received, adjusted and
-- sent, projected from its stock.* events. A unit is keyed by the counter
-- that holds its record and its first IMEI; its sale is the counter's order
-- (imei_units), read beside it. stock_qty is the movements of the items not
-- serialised outside sales (received, adjusted, sent); stock_transfers pairs
-- a transfer sent with its arrival at the other end.

CREATE TABLE IF NOT EXISTS stock_units (
    terminal_id text NOT NULL,
    imei        text NOT NULL,
    imei2       text NOT NULL DEFAULT '',
    sku         text NOT NULL,
    state       text NOT NULL CHECK (state IN ('in_stock', 'damaged', 'missing', 'in_transit')),
    cost        bigint NOT NULL DEFAULT 0,
    received_at timestamptz,
    supplier    text NOT NULL DEFAULT '',
    invoice     text NOT NULL DEFAULT '',
    seq         bigint NOT NULL,
    PRIMARY KEY (terminal_id, imei)
);

CREATE INDEX IF NOT EXISTS stock_units_imei ON stock_units (imei);

CREATE TABLE IF NOT EXISTS stock_qty (
    terminal_id text NOT NULL,
    sku         text NOT NULL,
    qty         bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (terminal_id, sku)
);

CREATE TABLE IF NOT EXISTS stock_transfers (
    from_terminal text NOT NULL,
    id            text NOT NULL,
    to_name       text NOT NULL,
    sent_at       timestamptz NOT NULL,
    units         int NOT NULL,
    received_by   text,
    received_at   timestamptz,
    PRIMARY KEY (from_terminal, id)
);

-- The stock events already stored are projected by a catch-up from the start.
TRUNCATE projection_marks, orders, order_lines, order_rates, payments, documents, credit_notes, imei_units, shifts, z_reports, overrides, over_refunds;
