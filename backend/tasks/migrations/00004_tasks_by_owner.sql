-- +goose Up
-- What one principal holds (open tasks, tasks, bytes): the inbox's quota is checked on it before a
-- caller's message is taken.
CREATE INDEX tasks_by_owner ON tasks(owner, state);

-- +goose Down
DROP INDEX tasks_by_owner;
