-- fct_friction_breakdown.insert: one (dimension, value) slice of a flagged (screen, friction type).
-- Grain: one row per (app_id, screen, friction_type, dimension, value). Reads: nothing.
insert into fct_friction_breakdown (
    app_id, screen, friction_type, dimension, value, users_hit, dropped_hit, dropoff_hit,
    dropoff_not_hit, relative_risk, users_lost, share_of_users_lost, explains_effect)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13);
