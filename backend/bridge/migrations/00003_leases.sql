-- +goose Up
-- Leases of the agents' work in hand, used on PostgreSQL only (several replicas: see its
-- 00002_replicas.sql). SQLite has one process; the columns stay at their defaults there.
ALTER TABLE bridge_contexts ADD COLUMN leased_by TEXT NOT NULL DEFAULT '';
ALTER TABLE bridge_contexts ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0; -- ms epoch

-- +goose Down
ALTER TABLE bridge_contexts DROP COLUMN lease_until;
ALTER TABLE bridge_contexts DROP COLUMN leased_by;
