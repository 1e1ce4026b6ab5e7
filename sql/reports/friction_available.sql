-- friction_available: whether the friction mart exists yet (it is built by a later migration).
-- Grain: one row. Reads: the catalog.
select to_regclass('funnel.fct_friction_impact') is not null as available;
