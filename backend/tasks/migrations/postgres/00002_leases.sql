-- +goose Up
-- Execution leases (several replicas on one database, see lease.go): the replica that last wrote a
-- task holds it (leased_by, and lease_key: the second key of its liveness lock, an advisory lock its
-- session holds while it lives) and renews the lease while it runs (leased_at, lease_until, on the
-- database's clock). A submitted or working task whose lease expired, or whose holder's session is
-- gone, was left by a replica that died, and another replica takes it over. Rows from before have
-- none: they count as expired.
ALTER TABLE tasks ADD COLUMN leased_by TEXT;
ALTER TABLE tasks ADD COLUMN lease_key INTEGER;
ALTER TABLE tasks ADD COLUMN leased_at TIMESTAMPTZ;
ALTER TABLE tasks ADD COLUMN lease_until TIMESTAMPTZ;

-- +goose Down
ALTER TABLE tasks DROP COLUMN lease_until;
ALTER TABLE tasks DROP COLUMN leased_at;
ALTER TABLE tasks DROP COLUMN lease_key;
ALTER TABLE tasks DROP COLUMN leased_by;
