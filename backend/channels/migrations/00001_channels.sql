-- +goose Up
-- One row per channel. last_seq is no longer maintained (a channel's newest sequence is the
-- MAX(sequence) of its events, and a publish takes the next one in the transaction that stores the
-- event, so sequences are contiguous and never reused, even across a crash); it stays for files
-- written by earlier builds.
CREATE TABLE channels (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL DEFAULT '',
    visibility  TEXT NOT NULL,              -- private | public
    direct      INTEGER NOT NULL DEFAULT 0, -- 1 for chan:direct:* (never listed, exactly two members)
    created_at  INTEGER NOT NULL,           -- ms epoch
    created_by  TEXT NOT NULL,
    metadata    BLOB NOT NULL,              -- JSON object
    version     INTEGER NOT NULL,           -- +1 on every membership or metadata change
    last_seq    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX channels_by_creation ON channels(created_at, id);

CREATE TABLE channel_members (
    channel_id   TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    principal_id TEXT NOT NULL,
    role         TEXT NOT NULL,             -- owner | member
    joined_at    INTEGER NOT NULL,
    PRIMARY KEY (channel_id, principal_id)
) WITHOUT ROWID;
CREATE INDEX channel_members_by_principal ON channel_members(principal_id);

-- Every message event of every channel, in order. request_hash is the digest of what the publish
-- carried, to tell an idempotent retry from a different payload under the same key.
CREATE TABLE channel_events (
    channel_id      TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    sequence        INTEGER NOT NULL,
    id              TEXT NOT NULL UNIQUE,
    timestamp       INTEGER NOT NULL,       -- ms epoch
    author          TEXT NOT NULL,
    idempotency_key TEXT,
    request_hash    BLOB NOT NULL,
    event_json      BLOB NOT NULL,
    PRIMARY KEY (channel_id, sequence)
) WITHOUT ROWID;
CREATE UNIQUE INDEX channel_events_idempotency ON channel_events(channel_id, author, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX channel_events_by_time ON channel_events(channel_id, timestamp, sequence);

-- One row per accepted action. Not tied to channels by a foreign key: the record of a deleted
-- channel outlives it.
CREATE TABLE channel_audit (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    at         INTEGER NOT NULL,            -- ms epoch
    channel_id TEXT NOT NULL,
    event_id   TEXT NOT NULL DEFAULT '',
    actor      TEXT NOT NULL,
    action     TEXT NOT NULL
);
CREATE INDEX channel_audit_by_channel ON channel_audit(channel_id, id);

-- The hub's own settings for channels: the random key that signs history page tokens.
CREATE TABLE channel_settings (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
);

-- +goose Down
DROP TABLE channel_settings;
DROP TABLE channel_audit;
DROP TABLE channel_events;
DROP TABLE channel_members;
DROP TABLE channels;
