-- +goose Up
-- What the owner has seen: a task is unread while it waits for the owner at a version newer than the
-- one they last opened (a new task, or the sender's reply to a question).
CREATE TABLE inbox_seen (
    task_id       TEXT PRIMARY KEY,
    seen_version  INTEGER NOT NULL
) WITHOUT ROWID;

-- +goose Down
DROP TABLE inbox_seen;
