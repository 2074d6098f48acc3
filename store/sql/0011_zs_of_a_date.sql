-- A date may have more than one Z report at a counter (ADR 0010): the Z of the
-- evening's sales after the first Z of the same date closes the date's next
-- period. A counter's Z is keyed by its number, and says the period of its
-- date it closes (1 for the first; every Z before this version).

ALTER TABLE z_reports DROP CONSTRAINT IF EXISTS z_reports_pkey;
ALTER TABLE z_reports ADD COLUMN IF NOT EXISTS period int NOT NULL DEFAULT 1 CHECK (period >= 1);
ALTER TABLE z_reports ADD PRIMARY KEY (terminal_id, z_no);

-- Re-projected (as 0010): a second Z of a date, dropped before, is kept.
TRUNCATE projection_marks, orders, order_lines, order_rates, payments, documents, credit_notes, imei_units, shifts, z_reports, overrides, over_refunds;
