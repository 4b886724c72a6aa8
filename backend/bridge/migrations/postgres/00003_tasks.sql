-- +goose Up
-- SQLite's migration 4: every task a channel started with an added agent, for the Tasks list.
CREATE TABLE bridge_tasks (
    agent_id   TEXT NOT NULL,
    task_id    TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    state      TEXT NOT NULL,            -- a2a.TaskState, as chat_tasks keeps it
    title      TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,          -- unix nanoseconds, as the Tasks list's positions count
    updated_at BIGINT NOT NULL,          -- unix nanoseconds
    PRIMARY KEY (agent_id, task_id)
);
CREATE INDEX bridge_tasks_newest ON bridge_tasks(created_at, task_id);

-- +goose Down
DROP TABLE bridge_tasks;
