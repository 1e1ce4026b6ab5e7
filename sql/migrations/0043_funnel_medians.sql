-- 0043_funnel_medians: keeps the default funnel's exact medians up to date by what changed,
-- instead of sorting every user's step times on every run (2.3-2.9 s a run at 1M users, growing
-- with the history).
--
-- int_funnel_points holds each user's seconds to reach each step (from the previous step), with
-- the user's breakdown; its primary key orders a step's points by seconds. int_funnel_medians
-- keeps per group ('all', or one network, campaign, country or platform) and step the number of
-- users and an anchor: the seconds value of the point at rank floor((users - 1) / 2), with how
-- many of the group's points lie below that value and at it; and the median it gives. After a
-- run changes some points, the counts move by the changes below and at the anchor, and the
-- middle is found again by stepping from the anchor to neighbouring values along the index: the
-- cost follows the changes, not the users. Step 0 (install) has no seconds: only its count is
-- kept.
-- Grain: int_funnel_points one row per (app_id, funnel, step_index, user_id); int_funnel_medians
-- one row per (app_id, funnel, step_index, dim, dim_value) with users.
-- Reads: nothing (filled by compute, see sql/compute/funnel_points.sql).
create table int_funnel_points (
    app_id     text             not null,
    funnel     text             not null,
    step_index integer          not null,
    seconds    double precision not null,
    user_id    text             not null,
    network    text             not null,
    campaign   text             not null,
    country    text             not null,
    platform   text             not null,
    primary key (app_id, funnel, step_index, seconds, user_id)
);

create table int_funnel_medians (
    app_id         text             not null,
    funnel         text             not null,
    step_index     integer          not null,
    dim            text             not null,
    dim_value      text             not null,
    users          bigint           not null,
    anchor_seconds double precision,
    anchor_below   bigint,
    anchor_ties    bigint,
    median_seconds double precision,
    primary key (app_id, funnel, step_index, dim, dim_value)
);

-- funnel_in_group: whether a point with this breakdown is in the group (dim, dim_value).
create function funnel_in_group(p_dim text, p_value text, network text, campaign text, country text,
                                platform text)
returns boolean
language sql immutable
as $function$
select case $1 when 'all' then true
               when 'network' then $3 = $2
               when 'campaign' then $4 = $2
               when 'country' then $5 = $2
               when 'platform' then $6 = $2 end
$function$;

-- funnel_points_at: how many of a group's points have exactly these seconds.
create function funnel_points_at(p_app text, p_funnel text, p_step integer, p_dim text, p_value text,
                                 p_seconds double precision)
returns bigint
language sql stable
as $function$
select count(*)
from int_funnel_points y
where y.app_id = p_app and y.funnel = p_funnel and y.step_index = p_step and y.seconds = p_seconds
  and funnel_in_group(p_dim, p_value, y.network, y.campaign, y.country, y.platform)
$function$;

-- funnel_value_after, funnel_value_before: the group's next seconds value above v (its lowest
-- when v is null), and the previous one below v; null when there is none. One index range scan
-- each, up to the group's next point.
create function funnel_value_after(p_app text, p_funnel text, p_step integer, p_dim text, p_value text,
                                   p_seconds double precision)
returns double precision
language sql stable
as $function$
select y.seconds
from int_funnel_points y
where y.app_id = p_app and y.funnel = p_funnel and y.step_index = p_step
  and y.seconds > coalesce(p_seconds, '-infinity')
  and funnel_in_group(p_dim, p_value, y.network, y.campaign, y.country, y.platform)
order by y.seconds
limit 1
$function$;

create function funnel_value_before(p_app text, p_funnel text, p_step integer, p_dim text, p_value text,
                                    p_seconds double precision)
returns double precision
language sql stable
as $function$
select y.seconds
from int_funnel_points y
where y.app_id = p_app and y.funnel = p_funnel and y.step_index = p_step and y.seconds < p_seconds
  and funnel_in_group(p_dim, p_value, y.network, y.campaign, y.country, y.platform)
order by y.seconds desc
limit 1
$function$;

-- funnel_middle_values: the seconds values at ranks t and t + 1 (0-based, in seconds order) of
-- one group, found by stepping from an anchor value v with `below` points under it and `ties`
-- points at it (ties may be 0: its points are gone) to the neighbouring values, counting the
-- points at each; without an anchor, from the group's lowest value. Returns the new anchor (the
-- value at rank t, with its counts) and the value at rank t + 1 (null past the end). Nothing for
-- a negative rank.
create function funnel_middle_values(
    p_app text, p_funnel text, p_step integer, p_dim text, p_value text,
    p_anchor double precision, p_below bigint, p_ties bigint, p_rank bigint,
    out anchor_seconds double precision, out anchor_below bigint, out anchor_ties bigint,
    out next_seconds double precision)
language plpgsql stable
as $function$
declare
    v double precision := p_anchor;
    below bigint := coalesce(p_below, 0);
    ties bigint := coalesce(p_ties, 0);
begin
    if p_rank < 0 then
        return;
    end if;
    if v is null then
        v := funnel_value_after(p_app, p_funnel, p_step, p_dim, p_value, null);
        if v is null then
            return;
        end if;
        below := 0;
        ties := funnel_points_at(p_app, p_funnel, p_step, p_dim, p_value, v);
    end if;
    while v is not null and p_rank < below loop
        v := funnel_value_before(p_app, p_funnel, p_step, p_dim, p_value, v);
        ties := funnel_points_at(p_app, p_funnel, p_step, p_dim, p_value, v);
        below := below - ties;
    end loop;
    while v is not null and p_rank >= below + ties loop
        below := below + ties;
        v := funnel_value_after(p_app, p_funnel, p_step, p_dim, p_value, v);
        ties := funnel_points_at(p_app, p_funnel, p_step, p_dim, p_value, v);
    end loop;
    if v is null then
        raise exception 'int_funnel_medians disagrees with int_funnel_points for (%, %, %, %, %)',
            p_app, p_funnel, p_step, p_dim, p_value
            using hint = 'run funnel compute --full to rebuild them';
    end if;
    anchor_seconds := v;
    anchor_below := below;
    anchor_ties := ties;
    next_seconds := case when p_rank + 1 < below + ties then v
                         else funnel_value_after(p_app, p_funnel, p_step, p_dim, p_value, v) end;
end
$function$;
