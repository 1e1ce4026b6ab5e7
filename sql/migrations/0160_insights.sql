-- 0160_insights: the trends and lifecycle insights of the configuration ([[trends]] and
-- [[lifecycle]] in funnel.toml, docs/insights.md), as compute counts them each run with the
-- runner `funnel query trends` and `funnel query lifecycle` use. Reads: nothing (a table; the
-- dash_trends and dash_lifecycle views over it are in sql/dashboards).

-- fct_insights: each configured insight's lines (a trends series, per breakdown value; a
-- lifecycle status) and their value per interval of the range, the last `days` days through each
-- app's last date with data. line_index is the line's place in the answer (series, then
-- breakdown values by events, the formula's lines instead of the series when there is one);
-- breakdown is '' without a breakdown and for events without a value, '$other' for the values
-- past the limit. point is the interval's start as `funnel query` names it (2024-05-01,
-- 2024-05-01 13:00), interval_start the same as a timestamp in the reporting time zone.
-- Grain: one row per (app_id, insight, name, line_index, point_index).
create table fct_insights (
    app_id         text             not null,
    insight        text             not null check (insight in ('trends', 'lifecycle')),
    name           text             not null,
    line_index     integer          not null,
    line           text             not null,
    breakdown      text             not null,
    point_index    integer          not null,
    point          text             not null,
    interval_start timestamp        not null,
    value          double precision,
    primary key (app_id, insight, name, line_index, point_index)
);
