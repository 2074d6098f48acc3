-- Lookups whose cost does not grow with the history (issue 25).
--
-- The manager's search finds a document by its number without the counter's
-- name (2627/000123 for T1/2627/000123): by this index, not by a scan of
-- every document. Terminal ids hold no '/', so the number past the first '/'
-- is the number past the terminal's name.
CREATE INDEX IF NOT EXISTS documents_number_in_series ON documents ((substr(number, length(terminal_id) + 2)));

-- The IMEIs that more than one order holds (a phone sold twice, or sold again
-- after a return), kept beside imei_units by a trigger on its inserts (every
-- writer of imei_units keeps it): the Today page's "IMEI sold more than once"
-- reads these IMEIs' rows instead of grouping every IMEI ever sold. Emptied
-- with the projections when they are rebuilt, and filled again by the rebuild.
CREATE TABLE IF NOT EXISTS imei_repeats (
    imei text PRIMARY KEY
);
INSERT INTO imei_repeats (imei) SELECT imei FROM imei_units GROUP BY imei HAVING count(*) > 1 ON CONFLICT DO NOTHING;

CREATE OR REPLACE FUNCTION imei_repeats_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO imei_repeats (imei)
        SELECT u.imei FROM imei_units u WHERE u.imei IN (SELECT imei FROM new_units)
        GROUP BY u.imei HAVING count(*) > 1
        ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS imei_units_repeats ON imei_units;
CREATE TRIGGER imei_units_repeats AFTER INSERT ON imei_units
    REFERENCING NEW TABLE AS new_units FOR EACH STATEMENT EXECUTE FUNCTION imei_repeats_add();
