-- +goose Up
-- Leases of notifications being attempted (see SQLite's 00003_leases.sql), and the webhooks of the
-- push receiver with the notifications one replica took for a subscription another replica holds.
ALTER TABLE push_outbox ADD COLUMN leased_by TEXT NOT NULL DEFAULT '';
ALTER TABLE push_outbox ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0; -- unix nanoseconds

-- The receiver's webhooks. The conversation waiting for a webhook's notifications runs in one
-- replica (holder), but the proxy may hand a notification to any: that one checks it against this
-- row and passes its body on through push_in_relay and a note. The holder renews alive_until while
-- it lives; a webhook past it is gone (410), as one whose conversation ended.
CREATE TABLE push_in_subs (
    id           TEXT PRIMARY KEY,     -- the webhook's path: InPath + id
    token_sha256 TEXT NOT NULL,        -- hex SHA-256 of the token the agent must send
    task_id      TEXT NOT NULL,
    jwks_url     TEXT NOT NULL,
    holder       TEXT NOT NULL,        -- the receiver (replica) whose conversation waits on it
    alive_until  BIGINT NOT NULL       -- unix nanoseconds
);
CREATE INDEX push_in_subs_holder ON push_in_subs(holder);

-- Notifications accepted by one replica for a webhook another holds, until the holder takes them.
CREATE TABLE push_in_relay (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- the order they were accepted in
    sub_id     TEXT NOT NULL,
    body       BYTEA NOT NULL,
    created_at BIGINT NOT NULL         -- unix nanoseconds
);
CREATE INDEX push_in_relay_sub ON push_in_relay(sub_id, id);

-- +goose Down
DROP TABLE push_in_relay;
DROP TABLE push_in_subs;
ALTER TABLE push_outbox DROP COLUMN lease_until;
ALTER TABLE push_outbox DROP COLUMN leased_by;
