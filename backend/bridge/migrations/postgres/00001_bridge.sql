-- +goose Up
-- The bridge's state as SQLite's migrations 1-2 leave it, in PostgreSQL's types.
CREATE TABLE bridge_contexts (
    channel_id TEXT NOT NULL,
    agent_id   TEXT NOT NULL,
    context_id TEXT NOT NULL DEFAULT '',  -- as the agent named it in its first answer
    task_id    TEXT NOT NULL DEFAULT '',
    state      TEXT NOT NULL,             -- idle | working | input-required | failed
    hop        INTEGER NOT NULL DEFAULT 0, -- of the message task_id answers
    updated_at BIGINT NOT NULL,           -- ms epoch
    origin_id  TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (channel_id, agent_id)
);

CREATE TABLE bridge_cursors (
    channel_id TEXT PRIMARY KEY,
    sequence   BIGINT NOT NULL
);

CREATE TABLE bridge_chains (
    origin_id TEXT PRIMARY KEY,        -- the originating channel event's id
    forwards  INTEGER NOT NULL,
    stopped   INTEGER NOT NULL DEFAULT 0
);

-- +goose Down
DROP TABLE bridge_chains;
DROP TABLE bridge_cursors;
DROP TABLE bridge_contexts;
