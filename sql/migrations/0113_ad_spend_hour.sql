-- 0113_ad_spend_hour: ad_spend rows may carry an hour of the day (0-23, in the reporting time zone
-- like their date; docs/inputs.md). The key of raw_ad_spend becomes (app_id, spend_date, network,
-- campaign, country, hour) with a missing hour one value of its own (NULLS NOT DISTINCT), so a day
-- row and hour rows of the same day are different rows and each is restated by a later row with
-- the same key. fct_cpi_hourly: per paid network, CPI by hour of day over the days whose spend rows
-- carry hours; dash_cpi_hourly shows it to dashboards.
-- Grain: raw_ad_spend one row per (app_id, spend_date, network, campaign, country, hour);
-- fct_cpi_hourly one row per (app_id, network, hour). Reads: nothing (compute writes
-- fct_cpi_hourly).
alter table raw_ad_spend add column hour smallint;
alter table raw_ad_spend add constraint raw_ad_spend_hour_range check (hour between 0 and 23);
alter table raw_ad_spend drop constraint raw_ad_spend_pkey;
alter table raw_ad_spend add constraint raw_ad_spend_key
    unique nulls not distinct (app_id, spend_date, network, campaign, country, hour);

create table fct_cpi_hourly (
    app_id        text     not null,
    network       text     not null,
    hour          smallint not null,
    days          integer  not null,
    spend         numeric  not null,
    paid_installs bigint   not null,
    cpi           numeric,
    cpi_index     double precision,
    primary key (app_id, network, hour)
);

create view dash_cpi_hourly as
select h.app_id, h.network, h.hour, h.days, h.spend, h.paid_installs, h.cpi, h.cpi_index
from fct_cpi_hourly h;

do $$
begin
    execute format('grant select on %I.dash_cpi_hourly to funnel_dashboard', current_schema());
end
$$;
