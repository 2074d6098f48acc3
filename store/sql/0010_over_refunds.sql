-- 0010: an invoice refunded beyond what was left of it across counters (issue
-- 22, docs/security.md "Offline returns"). A counter that cannot reach the
-- store refunds its own invoice from its own journal; when another counter
-- returned the same goods or money meanwhile, the refund that went over is a
-- fact (money moved) and is stored as sent, and the conflict is recorded here
-- as its event is projected, with an alarm naming the counters, the invoice
-- and the amount at stake. The day report and the store's Z show the sum.

CREATE TABLE IF NOT EXISTS over_refunds (
    terminal_id   text NOT NULL,   -- the counter whose refund went over
    refund_id     text NOT NULL,   -- that refund's unique_txn_id
    sold_terminal text NOT NULL,   -- the invoice's counter
    sold_order    text NOT NULL,
    number        text NOT NULL,   -- the invoice as printed
    others        text NOT NULL,   -- the other counters that refunded it ("T2")
    amount        bigint NOT NULL CHECK (amount > 0), -- the money at stake
    units         int NOT NULL DEFAULT 0 CHECK (units >= 0), -- units returned beyond those sold
    day           date,
    seq           bigint NOT NULL,
    PRIMARY KEY (terminal_id, refund_id)
);
CREATE INDEX IF NOT EXISTS over_refunds_day ON over_refunds (day);

-- Re-projected (as 0007): the catch-up finds the conflicts of the events held.
TRUNCATE projection_marks, orders, order_lines, order_rates, payments, documents, credit_notes, imei_units, shifts, z_reports, overrides;
