-- 0063_query_functions: helpers that funnel queries' property filters use.
-- try_numeric: a property's text as a number, or null when it is not one (so `price > 5` is
-- false, not an error, for an event whose price is "n/a").
-- Grain: none (a function). Reads: nothing.
create function try_numeric(value text) returns numeric
language sql immutable parallel safe
as $$
    select case when value ~ '^\s*[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]{1,3})?\s*$'
                then value::numeric end
$$;
