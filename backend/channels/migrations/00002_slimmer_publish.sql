-- +goose Up
-- A publish writes one event row and one audit row; every index on them is written with it (and a
-- page of each goes into the WAL at every commit). Kept: what a query reads.
--   - channel_events loses UNIQUE(id): nothing reads an event by id, and that index, keyed by a
--     random UUID, dirtied a page of its own for nearly every event;
--   - channel_events_by_time goes: history with sinceTimestamp reads the primary key in sequence
--     order (the page is in sequence order), so no query used it;
--   - channel_audit loses AUTOINCREMENT: audit rows are never deleted, so the rowid already grows
--     with every row, and AUTOINCREMENT updated sqlite_sequence on every insert.
CREATE TABLE channel_events_new (
    channel_id      TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    sequence        INTEGER NOT NULL,
    id              TEXT NOT NULL,          -- a random UUID
    timestamp       INTEGER NOT NULL,       -- ms epoch
    author          TEXT NOT NULL,
    idempotency_key TEXT,
    request_hash    BLOB NOT NULL,
    event_json      BLOB NOT NULL,
    PRIMARY KEY (channel_id, sequence)
) WITHOUT ROWID;
INSERT INTO channel_events_new(channel_id, sequence, id, timestamp, author, idempotency_key, request_hash, event_json)
    SELECT channel_id, sequence, id, timestamp, author, idempotency_key, request_hash, event_json FROM channel_events;
DROP TABLE channel_events;
ALTER TABLE channel_events_new RENAME TO channel_events;
CREATE UNIQUE INDEX channel_events_idempotency ON channel_events(channel_id, author, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

CREATE TABLE channel_audit_new (
    id         INTEGER PRIMARY KEY,         -- rowid: rows are never deleted, so it only grows
    at         INTEGER NOT NULL,            -- ms epoch
    channel_id TEXT NOT NULL,
    event_id   TEXT NOT NULL DEFAULT '',
    actor      TEXT NOT NULL,
    action     TEXT NOT NULL
);
INSERT INTO channel_audit_new(id, at, channel_id, event_id, actor, action)
    SELECT id, at, channel_id, event_id, actor, action FROM channel_audit;
DROP TABLE channel_audit;
ALTER TABLE channel_audit_new RENAME TO channel_audit;
CREATE INDEX channel_audit_by_channel ON channel_audit(channel_id, id);

-- +goose Down
CREATE TABLE channel_audit_old (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    at         INTEGER NOT NULL,
    channel_id TEXT NOT NULL,
    event_id   TEXT NOT NULL DEFAULT '',
    actor      TEXT NOT NULL,
    action     TEXT NOT NULL
);
INSERT INTO channel_audit_old SELECT id, at, channel_id, event_id, actor, action FROM channel_audit;
DROP TABLE channel_audit;
ALTER TABLE channel_audit_old RENAME TO channel_audit;
CREATE INDEX channel_audit_by_channel ON channel_audit(channel_id, id);

CREATE TABLE channel_events_old (
    channel_id      TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    sequence        INTEGER NOT NULL,
    id              TEXT NOT NULL UNIQUE,
    timestamp       INTEGER NOT NULL,
    author          TEXT NOT NULL,
    idempotency_key TEXT,
    request_hash    BLOB NOT NULL,
    event_json      BLOB NOT NULL,
    PRIMARY KEY (channel_id, sequence)
) WITHOUT ROWID;
INSERT INTO channel_events_old SELECT channel_id, sequence, id, timestamp, author, idempotency_key, request_hash, event_json FROM channel_events;
DROP TABLE channel_events;
ALTER TABLE channel_events_old RENAME TO channel_events;
CREATE UNIQUE INDEX channel_events_idempotency ON channel_events(channel_id, author, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX channel_events_by_time ON channel_events(channel_id, timestamp, sequence);
