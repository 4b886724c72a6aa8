-- +goose Up
-- The dialect of the method that set each push config: its notifications are sent in that dialect.
-- Configs from before this column were set through a2a-go, v1.0 or v0.3; v1.0 is the safer guess.
ALTER TABLE push_configs ADD COLUMN dialect TEXT NOT NULL DEFAULT '1.0';

-- +goose Down
ALTER TABLE push_configs DROP COLUMN dialect;
