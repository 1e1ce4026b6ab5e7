-- reset: empties every table compute derives, before a full rebuild of all history.
-- Grain: n/a. Reads: nothing.
truncate int_user_facts, int_user_funnel_steps, int_user_funnel_breakdown_steps, int_cohort_rollup, int_cohort_day_rollup,
         int_network_day_rollup, int_cohort_bracket_rollup, int_spend_day_rollup, int_funnel_points,
         int_funnel_medians, compute_state, compute_files;
