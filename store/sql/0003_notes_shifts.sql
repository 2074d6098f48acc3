-- Credit notes and shifts as the terminals journal them (issue 15): a credit
-- note's series number, where the money went, the GST it reverses and what of
-- a note to spend is spent; a shift's float, cash moves and count.
ALTER TABLE credit_notes
    ADD COLUMN refund_id text NOT NULL DEFAULT '',
    ADD COLUMN series    text NOT NULL DEFAULT '',
    ADD COLUMN doc_no    bigint NOT NULL DEFAULT 0,
    ADD COLUMN refund_to text NOT NULL DEFAULT '',
    ADD COLUMN taxable   bigint NOT NULL DEFAULT 0,
    ADD COLUMN tax       bigint NOT NULL DEFAULT 0,
    ADD COLUMN redeemed  bigint NOT NULL DEFAULT 0;

ALTER TABLE shifts
    ADD COLUMN day      date,
    ADD COLUMN float    bigint NOT NULL DEFAULT 0,
    ADD COLUMN cash_in  bigint NOT NULL DEFAULT 0,
    ADD COLUMN cash_out bigint NOT NULL DEFAULT 0,
    ADD COLUMN drops    bigint NOT NULL DEFAULT 0,
    ADD COLUMN counted  bigint,
    ADD COLUMN expected bigint,
    ADD COLUMN variance bigint;
