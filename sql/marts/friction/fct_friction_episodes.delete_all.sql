-- fct_friction_episodes.delete_all: removes every episode before a rebuild of every session
-- (fct_friction_episodes.delete_scope.sql for the sessions of a scope).
-- Grain: the whole table. Reads: nothing.
truncate fct_friction_episodes
