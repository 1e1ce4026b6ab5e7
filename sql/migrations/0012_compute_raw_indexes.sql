-- 0012_compute_raw_indexes: indexes compute needs on the raw tables: a user's installs (first
-- install and reinstalls of the users in dirty cohorts) and an invite by its id (the inviter of a
-- viral install). Both tables are small next to opens, so ingest barely pays for them.
-- Grain: n/a. Reads: raw_installs, raw_invites.

create index raw_installs_by_user on raw_installs (app_id, user_id, installed_at);
create index raw_invites_by_invite on raw_invites (app_id, invite_id);
