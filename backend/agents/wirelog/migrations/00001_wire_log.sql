-- +goose Up
-- What AgentHub saw on the wire with remote agents, secrets already masked: one row per request,
-- response, SSE event or transport failure. AUTOINCREMENT keeps ids growing after pruning, so a
-- page cursor (an id) never points at a reused row.
CREATE TABLE wire_log (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id  TEXT NOT NULL,
    call_id   TEXT NOT NULL,
    at        INTEGER NOT NULL,            -- unix nanoseconds
    kind      TEXT NOT NULL,               -- request | response | event | error
    method    TEXT NOT NULL DEFAULT '',    -- JSON-RPC method, or "token"
    url       TEXT NOT NULL DEFAULT '',
    status    INTEGER NOT NULL DEFAULT 0,
    duration  INTEGER NOT NULL DEFAULT 0,  -- nanoseconds since the request
    header    TEXT NOT NULL DEFAULT '{}',  -- JSON object
    body      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX wire_log_agent ON wire_log(agent_id, id);

-- +goose Down
DROP TABLE wire_log;
