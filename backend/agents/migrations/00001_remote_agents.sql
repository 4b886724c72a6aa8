-- +goose Up
-- Agents the owner added by URL. The card is kept as fetched (the raw document), so it can be shown
-- and re-validated as the rules grow, with when it was fetched and why the last fetch failed, if it did.
CREATE TABLE remote_agents (
    id          TEXT PRIMARY KEY,
    added_url   TEXT NOT NULL,            -- what the owner typed
    card_url    TEXT NOT NULL UNIQUE,     -- where the card was found
    card_json   BLOB NOT NULL,
    name        TEXT NOT NULL,
    added_at    INTEGER NOT NULL,         -- unix nanoseconds
    fetched_at  INTEGER NOT NULL,         -- last successful fetch
    checked_at  INTEGER NOT NULL,         -- last attempt
    fetch_error TEXT NOT NULL DEFAULT ''  -- '' when the last attempt succeeded
);

-- +goose Down
DROP TABLE remote_agents;
