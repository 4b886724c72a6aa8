-- +goose Up
-- One row per (channel, added agent) the bridge has talked to: the A2A context that keeps the
-- channel's thread with that agent across restarts, and the task in hand (the one an input-required
-- question belongs to, or one still working when the hub stopped, watched again at start).
CREATE TABLE bridge_contexts (
    channel_id TEXT NOT NULL,
    agent_id   TEXT NOT NULL,
    context_id TEXT NOT NULL DEFAULT '',  -- as the agent named it in its first answer
    task_id    TEXT NOT NULL DEFAULT '',
    state      TEXT NOT NULL,             -- idle | working | input-required | failed
    hop        INTEGER NOT NULL DEFAULT 0, -- of the message task_id answers
    updated_at INTEGER NOT NULL,          -- ms epoch
    PRIMARY KEY (channel_id, agent_id)
);

-- The newest channel event the bridge has acted on (sent to an agent, or stopped at the hop limit),
-- written before it acts: a restart catches up on the events after it and never acts on one twice.
CREATE TABLE bridge_cursors (
    channel_id TEXT PRIMARY KEY,
    sequence   INTEGER NOT NULL
);

-- +goose Down
DROP TABLE bridge_cursors;
DROP TABLE bridge_contexts;
