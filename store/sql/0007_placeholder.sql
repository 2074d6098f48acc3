-- Number 7 belongs to another change of the schema, made beside 0008: this
-- file keeps the numbers without a gap until that one takes its place (it
-- changes nothing, so a database that ran it needs nothing undone).
SELECT 1;
