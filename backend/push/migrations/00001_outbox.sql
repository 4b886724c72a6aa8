-- +goose Up
-- The durable push outbox: one row per notification to one push config, written in the same
-- transaction as the task event that caused it (tasks.WriteHook), so an acknowledged event always has
-- its notifications recorded. Rows of one (task_id, config_id) are delivered in id order, one at a time.
CREATE TABLE push_outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT, -- delivery order within a config
    notification_id TEXT NOT NULL UNIQUE,   -- the JWT's jti: the same on every attempt, so receivers can drop repeats
    task_id         TEXT NOT NULL,
    config_id       TEXT NOT NULL,
    dialect         TEXT NOT NULL,          -- the config's dialect: payload shape, token header, v0.1 challenge
    event_seq       INTEGER NOT NULL,       -- the task event (task_events.seq) it reports
    payload         BLOB,                   -- the body POSTed; NULL once delivered
    state           TEXT NOT NULL,          -- pending | delivered | failed | canceled
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,       -- unix nanoseconds
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    last_status     INTEGER NOT NULL DEFAULT 0, -- HTTP status of the last attempt (0: none or no answer)
    last_error      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX push_outbox_pending ON push_outbox(task_id, config_id, id) WHERE state = 'pending';
CREATE INDEX push_outbox_by_task ON push_outbox(task_id, config_id, id);

-- Per push config: whether it was set by a loopback caller (which may target loopback and private
-- addresses), for the URL it was checked against, and whether that URL passed the v0.1 validation
-- challenge.
CREATE TABLE push_targets (
    task_id      TEXT NOT NULL,
    config_id    TEXT NOT NULL,
    url          TEXT NOT NULL,
    caller_local INTEGER NOT NULL,
    validated    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (task_id, config_id)
);

-- +goose Down
DROP TABLE push_targets;
DROP TABLE push_outbox;
