-- +goose Up
-- One row per task: its latest state as the v1.0 JSON of a2a.Task (status, history, artifacts), plus
-- the columns that queries filter on. version is the optimistic-concurrency counter a2a-go expects.
CREATE TABLE tasks (
    id          TEXT PRIMARY KEY,
    context_id  TEXT NOT NULL,
    dialect     TEXT NOT NULL,              -- protocol the task was created in: 1.0, 0.3 or 0.1
    owner       TEXT NOT NULL DEFAULT '',   -- principal that created it ('' until auth lands)
    state       TEXT NOT NULL,
    version     INTEGER NOT NULL,
    task_json   BLOB NOT NULL,
    created_at  INTEGER NOT NULL,           -- unix nanoseconds
    updated_at  INTEGER NOT NULL            -- unix nanoseconds, the list order
);
CREATE INDEX tasks_by_update ON tasks(updated_at DESC, id DESC);
CREATE INDEX tasks_by_context ON tasks(context_id, updated_at DESC);
CREATE INDEX tasks_by_state ON tasks(state);

-- Every event of every task, in order: what streams replay after a restart or a dropped connection.
CREATE TABLE task_events (
    task_id     TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,           -- 1, 2, 3 ... per task
    version     INTEGER NOT NULL,           -- task version once this event was applied
    kind        TEXT NOT NULL,              -- task | status | artifact | message
    final       INTEGER NOT NULL,           -- 1 when a stream ends with this event
    event_json  BLOB NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (task_id, seq)
) WITHOUT ROWID;

-- Push notification configs. No foreign key: a2a-go saves a message's push config before the task row
-- exists.
CREATE TABLE push_configs (
    task_id     TEXT NOT NULL,
    id          TEXT NOT NULL,
    config_json BLOB NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (task_id, id)
);

-- +goose Down
DROP TABLE push_configs;
DROP TABLE task_events;
DROP TABLE tasks;
