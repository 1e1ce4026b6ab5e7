-- ltv_buyers: every buyer's purchase days (days since install with a purchase), for the per-user
-- purchase model (PurchaseModelProjection); users who never bought are counted from the
-- triangle's installs instead of read one by one.
-- Grain: one row per (app_id, user_id) with purchases. Reads: int_user_facts.
select app_id, network, cohort_date::text, array_to_string(purchase_days, ',')
from int_user_facts
where purchase_days <> '{}';
