-- +goose Up
-- Leases of notifications being attempted (see SQLite's 00003_leases.sql), and the webhooks of the
-- push receiver with the notifications one replica took for a subscription another replica holds.
ALTER TABLE push_outbox ADD COLUMN leased_by TEXT NOT NULL DEFAULT '';
ALTER TABLE push_outbox ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0; -- unix nanoseconds

-- +goose Down
ALTER TABLE push_outbox DROP COLUMN lease_until;
ALTER TABLE push_outbox DROP COLUMN leased_by;
