-- Where each refund's money went (pos.RefundDestination: card, cash or note),
-- so that the store's day lists refunds and expects cash by the counter's rule:
-- a cash sale returned onto a credit note is a note refund and takes no cash
-- out of the drawer. Empty for a payment taken.
ALTER TABLE payments ADD COLUMN IF NOT EXISTS refund_to text NOT NULL DEFAULT '';
DROP INDEX IF EXISTS payments_day;
CREATE INDEX payments_day ON payments (day, kind) INCLUDE (terminal_id, tender, refund_to, amount);

-- The rows projected before this carry no destination: the projections are
-- emptied, and the next catch-up (before the first read, or after the next
-- batch) projects every stored event again, as galla store rebuild does. The
-- store-wide decisions (reservations, balances) are not projections and stay.
TRUNCATE projection_marks, orders, order_lines, order_rates, payments, documents, credit_notes, imei_units, shifts, z_reports, overrides;
