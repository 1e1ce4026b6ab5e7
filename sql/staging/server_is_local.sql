-- server_is_local: whether this connection reaches the server through a Unix socket, so that the
-- server shares this machine's processors with the loader (inet_server_addr is null then).
-- Grain: one row. Inputs: none.
select inet_server_addr() is null as local
