-- +goose Up
-- The UI token on PostgreSQL, where every replica of the hub must accept the same one (on SQLite it
-- is the ui-token file in the data dir: one process owns the database). One row.
CREATE TABLE ui_token (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    token TEXT NOT NULL
);

-- +goose Down
DROP TABLE ui_token;
