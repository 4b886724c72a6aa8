-- +goose Up
-- Leases of notifications being attempted. On PostgreSQL several hub replicas share the outbox: a
-- replica claims the first pending notification of a (task, config) with its id and an expiry, renews
-- the lease while its attempt runs, and records the outcome only while it still holds it. A dead
-- replica's leases expire and another replica takes over. SQLite has one process: the columns stay
-- at their defaults there.
ALTER TABLE push_outbox ADD COLUMN leased_by TEXT NOT NULL DEFAULT '';
ALTER TABLE push_outbox ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0; -- unix nanoseconds

-- +goose Down
ALTER TABLE push_outbox DROP COLUMN lease_until;
ALTER TABLE push_outbox DROP COLUMN leased_by;
