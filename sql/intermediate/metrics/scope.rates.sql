-- scope.rates: adds to the scope what changed exchange rates touch: the cohorts of the users with
-- a purchase in a changed currency on or after its first changed date (the UTC date of
-- purchased_at, the date its rate is taken on), and the spend dates with ad spend in it from that
-- date on. They are rebuilt from the raw rows at the new rates.
-- Grain: compute_scope and spend_scope one row per (app_id, date). Reads: rate_changes,
-- raw_purchases, raw_ad_spend, int_user_facts.
insert into spend_scope (app_id, spend_date)
select distinct a.app_id, a.spend_date
from raw_ad_spend a
join rate_changes rc on rc.currency = a.currency and a.spend_date >= rc.changed_from
on conflict do nothing;

insert into compute_scope (app_id, cohort_date)
select distinct f.app_id, f.cohort_date
from raw_purchases p
join rate_changes rc on rc.currency = p.currency
                    and p.purchased_at >= rc.changed_from::timestamp at time zone 'UTC'
join int_user_facts f on f.app_id = p.app_id and f.user_id = p.user_id
on conflict do nothing;
