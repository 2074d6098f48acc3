-- The store-wide decisions rest on verified events (issue 22, docs/security.md
-- "Decisions from the chain"): a credit note's balance is either a claim of its
-- issuing counter (spendable by that counter only, until the note's event
-- arrives) or verified from that event; a return reserves the invoice's lines
-- and units, and a reservation settles when its refund's event arrives at the
-- store from the counter that reserved it (on the invoice, or on a return order
-- citing it) or expires (store.ReserveHold after reserved_at).

-- A balance made by IssueCreditNote is a claim until the issuing counter's
-- event verifies it; one its events contradict, or that no event backs, is
-- void. What was spent of a note may pass its value once its event says the
-- claim was too high: the alarm says so, and nothing more can be taken.
ALTER TABLE credit_note_balances
    ADD COLUMN IF NOT EXISTS state      text NOT NULL DEFAULT 'verified' CHECK (state IN ('claimed', 'verified', 'void')),
    ADD COLUMN IF NOT EXISTS claimed_at timestamptz;
ALTER TABLE credit_note_balances DROP CONSTRAINT IF EXISTS credit_note_balances_check;
ALTER TABLE credit_note_balances DROP CONSTRAINT IF EXISTS credit_note_balances_redeemed;
ALTER TABLE credit_note_balances ADD CONSTRAINT credit_note_balances_redeemed CHECK (redeemed >= 0);
-- The balances held before cannot tell a claim from a verified note: each is a
-- claim until the re-projection below verifies it from its event.
UPDATE credit_note_balances SET state = 'claimed', claimed_at = now();

-- The goods a return reserved: [{line, sku, qty, amount, imeis}] (api.ReturnLine);
-- '[]' for a return reserved by amount alone (by the invoice's own counter).
ALTER TABLE return_reservations ADD COLUMN IF NOT EXISTS lines jsonb NOT NULL DEFAULT '[]';

-- The return orders of a counter (pos.Order.Origin), found by the invoice they
-- take goods back on.
CREATE INDEX IF NOT EXISTS orders_origin ON orders ((snapshot->'origin'->>'terminal'), (snapshot->'origin'->>'order_id'))
    WHERE snapshot ? 'origin';

-- Re-projected (as 0006): the catch-up settles the reservations whose refunds'
-- events are held and verifies the credit notes' balances from their events.
TRUNCATE projection_marks, orders, order_lines, order_rates, payments, documents, credit_notes, imei_units, shifts, z_reports, overrides;
