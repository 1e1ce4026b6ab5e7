-- bulk_missing_partitions: which of some monthly partition names do not exist yet, so the bulk
-- merge builds those months in its load table and attaches them (the others' rows go through the
-- raw table's indexes). Grain: one row per missing name. Inputs: $1 the names
-- (raw_<kind>_YYYY_MM, built in code from the kind and the staged months).
select name
from unnest($1::text[]) as name
where to_regclass(format('%I.%I', current_schema(), name)) is null
order by name;
