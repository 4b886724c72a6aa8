-- +goose Up
-- The inbox table as SQLite's migrations 00001-00002 leave it, in PostgreSQL's dialect: per task, the
-- version the owner last opened and the version right after the owner's last answer.
CREATE TABLE inbox_seen (
    task_id          TEXT PRIMARY KEY,
    seen_version     BIGINT NOT NULL,
    answered_version BIGINT NOT NULL DEFAULT 0
);

-- +goose Down
DROP TABLE inbox_seen;
