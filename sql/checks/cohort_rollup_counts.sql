-- cohort_rollup_counts: cohort slices whose counts contradict each other (paid + organic + viral
-- must equal installs; every milestone and funnel step is at most the installs, and each funnel
-- step at most the previous one). Grain: one row per offending slice. Reads: int_cohort_rollup.
select app_id, cohort_date, network, campaign, country, platform
from int_cohort_rollup
where paid_installs + organic_installs + viral_installs <> installs
   or openers > installs or onboarded > installs or regular_users > installs or payers > installs
   or funnel_open > installs or funnel_onboarded > funnel_open or funnel_regular > funnel_onboarded
   or funnel_purchase > funnel_regular or installs <= 0 or reinstalls < 0 or invites_sent < 0
