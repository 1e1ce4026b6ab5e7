-- truncate_staging: empties the session's staging tables before a new file.
-- Grain: none. Inputs: the temp tables of create_staging.sql.
truncate stage_installs, stage_opens, stage_retention, stage_purchases, stage_invites,
    stage_ad_spend, stage_steps, stage_ux, stage_rejects;
