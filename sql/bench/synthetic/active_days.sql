-- synthetic/active_days: the days in [$2, $3] on which each synthetic user of app $1 is active,
-- with a retention curve r(d) = 0.45 d^-0.5 (day 0 always), into the temp table syn_active.
-- Grain: one row per (user, active date). Reads: raw_installs. Parameters: $1 app, $2 from, $3 to.
insert into syn_active (user_id, installed_at, day, n, h)
select i.user_id, i.installed_at, d.day, d.day - i.installed_at::date,
       abs(hashtext(i.user_id || d.day::text))
from raw_installs i
cross join lateral (
    select g::date as day
    from generate_series(greatest($2::date, i.installed_at::date), $3::date, interval '1 day') as g
) d
where i.app_id = $1 and i.event_id like 'i%' and i.event_id not like '%r'
  and (d.day = i.installed_at::date
       or abs(hashtext(i.user_id || d.day::text)) % 10000
          < 4500 / sqrt(greatest(1, d.day - i.installed_at::date)))
