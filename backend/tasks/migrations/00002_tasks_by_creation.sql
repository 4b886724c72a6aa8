-- +goose Up
-- The UI lists tasks newest first by creation, so rows don't jump around as tasks progress.
CREATE INDEX tasks_by_creation ON tasks(created_at DESC, id DESC);

-- +goose Down
DROP INDEX tasks_by_creation;
