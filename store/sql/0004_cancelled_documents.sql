-- A cancelled sale document (pos/cancel.go, document.cancelled): it keeps its
-- number and its row, marked cancelled with the reason; its order's state is
-- projected CANCELLED, so that it is in no day total.
ALTER TABLE documents ADD COLUMN cancelled boolean NOT NULL DEFAULT false;
ALTER TABLE documents ADD COLUMN cancel_reason text NOT NULL DEFAULT '';
