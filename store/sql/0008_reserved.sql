-- 0008: a number held for a change made beside this one; it changes nothing
-- here. When that change's own 0008 is merged, this file goes.
SELECT 1;
