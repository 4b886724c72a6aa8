-- +goose Up
-- The remote agents the owner added, in PostgreSQL's types.
CREATE TABLE remote_agents (
    id          TEXT COLLATE "C" PRIMARY KEY,
    added_url   TEXT NOT NULL,            -- what the owner typed
    card_url    TEXT NOT NULL UNIQUE,     -- where the card was found
    card_json   BYTEA NOT NULL,
    name        TEXT NOT NULL,
    added_at    BIGINT NOT NULL,          -- unix nanoseconds
    fetched_at  BIGINT NOT NULL,          -- last successful fetch
    checked_at  BIGINT NOT NULL,          -- last attempt
    fetch_error TEXT NOT NULL DEFAULT ''  -- '' when the last attempt succeeded
);

-- +goose Down
DROP TABLE remote_agents;
