-- Each counter's shop details and registration history (issue 23): the last
-- settings.changed "shop" and "shop.registrations" it journaled, so that the
-- store's GSTR-1, CSV and day report take the registration in force on each
-- document's date (pos.Shops), as the counter does. Each statement may run
-- again.

CREATE TABLE IF NOT EXISTS counter_shops (
    terminal_id   text PRIMARY KEY,
    shop          jsonb,
    registrations jsonb
);

-- The settings already stored are projected by a catch-up from the start.
TRUNCATE projection_marks, orders, order_lines, order_rates, payments, documents, credit_notes, imei_units, imei_repeats, shifts, z_reports, overrides, over_refunds,
    stock_units, stock_qty, stock_transfers, stock_orders, stock_terminals, counter_shops;
