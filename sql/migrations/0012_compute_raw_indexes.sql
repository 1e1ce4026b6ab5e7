-- 0012_compute_raw_indexes: indexes compute needs on the raw tables beyond the loader's: an invite
-- by its id (the inviter of a viral install). A user's installs are indexed by 0004
-- (raw_installs_by_user), which compute also uses for first installs and reinstalls.
-- Grain: n/a. Reads: raw_invites.

create index raw_invites_by_invite on raw_invites (app_id, invite_id);
