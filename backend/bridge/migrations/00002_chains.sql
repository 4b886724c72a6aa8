-- +goose Up
-- One row per message of a person (or other author that is not an added agent) that reached an
-- agent: how many messages to agents its chain of answers has made so far, against the forward
-- budget, and whether the chain was stopped (its one notice posted). Written in the transaction that
-- records the event as handled (bridge_cursors), so a restart mid-chain neither resets the count
-- nor posts a second notice.
CREATE TABLE bridge_chains (
    origin_id TEXT PRIMARY KEY,        -- the originating channel event's id
    forwards  INTEGER NOT NULL,
    stopped   INTEGER NOT NULL DEFAULT 0
);

-- The chain a task in hand belongs to, so a task watched again after a restart answers within it.
ALTER TABLE bridge_contexts ADD COLUMN origin_id TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE bridge_contexts DROP COLUMN origin_id;
DROP TABLE bridge_chains;
