-- fct_friction_impact.insert: one assessed (screen, friction type) of an app.
-- Grain: one row per (app_id, screen, friction_type). Reads: nothing.
insert into fct_friction_impact (
    app_id, screen, friction_type, users_hit, users_not_hit, dropped_hit, dropped_not_hit,
    dropoff_hit, dropoff_not_hit, relative_risk, p_value, q_value, users_lost, meets_minimum_sample,
    flagged, rank, d1_users_hit, d1_users_not_hit, d1_dropoff_hit, d1_dropoff_not_hit,
    d1_relative_risk, d1_p_value)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22);
