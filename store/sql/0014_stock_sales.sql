-- Stock by IMEI (issue 26): the counters' sales and returns projected into
-- their stock as each counter's stock book applies them (pos.StockEffectOf).
-- A unit sold is state 'sold' with the order that sold it; a unit a return
-- brought back, at the counter that sold it or at another, is in stock at the
-- counter that took it back. stock_qty counts the sales and returns of the
-- items not serialised. stock_orders holds, per order of a counter that keeps
-- stock, what it last took out (pos.StockEffect); stock_terminals the
-- counters that keep stock (from their first goods received, or count). Each
-- statement may run again.

ALTER TABLE stock_units ADD COLUMN IF NOT EXISTS order_id text NOT NULL DEFAULT '';
ALTER TABLE stock_units DROP CONSTRAINT IF EXISTS stock_units_state_check;
ALTER TABLE stock_units ADD CONSTRAINT stock_units_state_check CHECK (state IN ('in_stock', 'sold', 'damaged', 'missing', 'in_transit'));
CREATE INDEX IF NOT EXISTS stock_units_imei2 ON stock_units (imei2);

CREATE TABLE IF NOT EXISTS stock_orders (
    terminal_id text NOT NULL,
    order_id    text NOT NULL,
    effect      jsonb NOT NULL,
    PRIMARY KEY (terminal_id, order_id)
);

CREATE TABLE IF NOT EXISTS stock_terminals (
    terminal_id text PRIMARY KEY,
    since       timestamptz NOT NULL
);

-- The sales already stored are projected into stock by a catch-up from the start.
TRUNCATE projection_marks, orders, order_lines, order_rates, payments, documents, credit_notes, imei_units, imei_repeats, shifts, z_reports, overrides, over_refunds,
    stock_units, stock_qty, stock_transfers, stock_orders, stock_terminals;
