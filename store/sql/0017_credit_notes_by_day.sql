-- The day's credit notes (the manager's Today page lists the returns of the
-- day by counter and destination) read by their day, not by a scan of every
-- credit note the store holds (issue 25: every manager page flat with the
-- history; store/web TestManagerPagesReadHistoryByIndex).
CREATE INDEX IF NOT EXISTS credit_notes_day ON credit_notes (day);
