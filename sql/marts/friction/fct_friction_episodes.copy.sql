-- fct_friction_episodes.copy: bulk insert of detected episodes (COPY text format).
-- Grain: one row per episode. Reads: nothing.
copy fct_friction_episodes (app_id, user_id, session_id, screen, friction_type, occurred_at, severity,
                            input_mode, orientation, platform)
from stdin;
