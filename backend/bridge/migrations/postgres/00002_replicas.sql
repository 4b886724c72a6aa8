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

-- The replica whose worker has an agent's message or task in hand (state working), until when: it
-- renews the lease while it lives; a lease that ran out is taken over by another replica, which
-- watches the task again (or reports the message interrupted), as a restart does.
ALTER TABLE bridge_contexts ADD COLUMN leased_by TEXT NOT NULL DEFAULT '';
ALTER TABLE bridge_contexts ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0; -- ms epoch

-- +goose Down
ALTER TABLE bridge_contexts DROP COLUMN lease_until;
ALTER TABLE bridge_contexts DROP COLUMN leased_by;
DROP TABLE bridge_claims;
