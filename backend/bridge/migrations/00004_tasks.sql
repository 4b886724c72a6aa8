-- +goose Up
-- Every task a channel started with an added agent (or watched again for it after a restart), for
-- the Tasks list: the channel, the task's A2A state, the start of the message that began it.
-- bridge_contexts keeps only the task in hand; this keeps them all. Written in the transaction that
-- records the agent's state.
CREATE TABLE bridge_tasks (
    agent_id   TEXT NOT NULL,
    task_id    TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    state      TEXT NOT NULL,            -- a2a.TaskState, as chat_tasks keeps it
    title      TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,         -- unix nanoseconds, as the Tasks list's positions count
    updated_at INTEGER NOT NULL,         -- unix nanoseconds
    PRIMARY KEY (agent_id, task_id)
);
CREATE INDEX bridge_tasks_newest ON bridge_tasks(created_at, task_id);

-- +goose Down
DROP TABLE bridge_tasks;
