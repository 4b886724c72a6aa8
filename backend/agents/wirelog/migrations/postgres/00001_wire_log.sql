-- +goose Up
-- The raw wire log, in PostgreSQL's types: id grows with every entry, as SQLite's AUTOINCREMENT.
CREATE TABLE wire_log (
    id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id  TEXT NOT NULL,
    call_id   TEXT NOT NULL,
    at        BIGINT NOT NULL,             -- unix nanoseconds
    kind      TEXT NOT NULL,               -- request | response | event | error
    method    TEXT NOT NULL DEFAULT '',    -- JSON-RPC method, or "token"
    url       TEXT NOT NULL DEFAULT '',
    status    INTEGER NOT NULL DEFAULT 0,
    duration  BIGINT NOT NULL DEFAULT 0,   -- nanoseconds since the request
    header    TEXT NOT NULL DEFAULT '{}',  -- JSON object
    body      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX wire_log_agent ON wire_log(agent_id, id);

-- +goose Down
DROP TABLE wire_log;
