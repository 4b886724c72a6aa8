-- +goose Up
-- The task's version right after the owner's last answer (an artifact; the task stays open): the
-- task waits for the sender, not the owner, until something newer arrives from the sender.
ALTER TABLE inbox_seen ADD COLUMN answered_version INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE inbox_seen DROP COLUMN answered_version;
