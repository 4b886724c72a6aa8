-- +goose Up
-- The tasks tables as SQLite's migrations 00001-00004 leave them, in PostgreSQL's dialect.
-- Ids sort bytewise (COLLATE "C") as in SQLite: list cursors compare (time, id) in Go too.
CREATE TABLE tasks (
    id          TEXT COLLATE "C" PRIMARY KEY,
    context_id  TEXT NOT NULL,
    dialect     TEXT NOT NULL,              -- protocol the task was created in: 1.0, 0.3 or 0.1
    owner       TEXT NOT NULL DEFAULT '',   -- principal that created it ('' until auth lands)
    state       TEXT NOT NULL,
    version     BIGINT NOT NULL,
    task_json   BYTEA NOT NULL,
    created_at  BIGINT NOT NULL,            -- unix nanoseconds
    updated_at  BIGINT NOT NULL             -- unix nanoseconds, the list order
);
CREATE INDEX tasks_by_update ON tasks(updated_at DESC, id DESC);
CREATE INDEX tasks_by_context ON tasks(context_id, updated_at DESC);
CREATE INDEX tasks_by_state ON tasks(state);
CREATE INDEX tasks_by_creation ON tasks(created_at DESC, id DESC);
CREATE INDEX tasks_by_owner ON tasks(owner, state);

-- Every event of every task, in order: what streams replay after a restart or a dropped connection.
CREATE TABLE task_events (
    task_id     TEXT COLLATE "C" NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL,            -- 1, 2, 3 ... per task
    version     BIGINT NOT NULL,            -- task version once this event was applied
    kind        TEXT NOT NULL,              -- task | status | artifact | message
    final       INTEGER NOT NULL,           -- 1 when a stream ends with this event
    event_json  BYTEA NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (task_id, seq)
);

-- Push notification configs. No foreign key: a2a-go saves a message's push config before the task row
-- exists. seq stands for SQLite's rowid: configs set in the same second list in the order they were
-- first set.
CREATE TABLE push_configs (
    task_id     TEXT NOT NULL,
    id          TEXT NOT NULL,
    config_json BYTEA NOT NULL,
    created_at  BIGINT NOT NULL,            -- unix seconds
    dialect     TEXT NOT NULL DEFAULT '1.0',
    seq         BIGINT GENERATED ALWAYS AS IDENTITY,
    PRIMARY KEY (task_id, id)
);

-- +goose Down
DROP TABLE push_configs;
DROP TABLE task_events;
DROP TABLE tasks;
