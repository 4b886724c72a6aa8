-- +goose Up
-- Several hub replicas share one PostgreSQL database, and every replica's bridge hears every channel
-- event: the first to insert an event's row here acts on it (sends it to the agents it mentions,
-- counts it against its chain), the others leave it. Rows are kept a day, far longer than any
-- replica takes to hear an event or catch up on one. SQLite has one process, and no such table.
CREATE TABLE bridge_claims (
    channel_id TEXT NOT NULL,
    sequence   BIGINT NOT NULL,
    claimed_at BIGINT NOT NULL,   -- ms epoch
    PRIMARY KEY (channel_id, sequence)
);
CREATE INDEX bridge_claims_age ON bridge_claims(claimed_at);

-- +goose Down
DROP TABLE bridge_claims;
