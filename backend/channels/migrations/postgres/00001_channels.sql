-- +goose Up
-- The channels schema as the four SQLite migrations leave it (see ../0000*.sql for why each part is
-- as it is), in PostgreSQL's dialect: BLOB is BYTEA, ms epochs and sequences are BIGINT, and the
-- rowids SQLite gives channel_events and channel_audit are named identity columns.

-- One row per channel. last_seq is not maintained (a channel's newest sequence is the MAX(sequence)
-- of its events); it is kept so both engines have the same columns.
CREATE TABLE channels (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL DEFAULT '',
    visibility  TEXT NOT NULL,              -- private | public
    direct      INTEGER NOT NULL DEFAULT 0, -- 1 for chan:direct:* (never listed, exactly two members)
    created_at  BIGINT NOT NULL,            -- ms epoch
    created_by  TEXT NOT NULL,
    metadata    BYTEA NOT NULL,             -- JSON object
    version     BIGINT NOT NULL,            -- +1 on every membership or metadata change
    last_seq    BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX channels_by_creation ON channels(created_at, id);

CREATE TABLE channel_members (
    channel_id   TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    principal_id TEXT NOT NULL,
    role         TEXT NOT NULL,             -- owner | member
    joined_at    BIGINT NOT NULL,
    PRIMARY KEY (channel_id, principal_id)
);
CREATE INDEX channel_members_by_principal ON channel_members(principal_id);

-- Every message event of every channel, in order. row_id is what SQLite's rowid is to this table
-- (the order rows were stored in; no query reads it yet); the key (channel_id, sequence) is an index
-- of its own, as in SQLite since 00004, so the last sequence is found without reading events' JSON.
-- request_hash is the digest of what the publish carried, to tell an idempotent retry from a
-- different payload under the same key.
CREATE TABLE channel_events (
    row_id          BIGINT GENERATED ALWAYS AS IDENTITY,
    channel_id      TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    sequence        BIGINT NOT NULL,
    id              TEXT NOT NULL,          -- a random UUID
    timestamp       BIGINT NOT NULL,        -- ms epoch
    author          TEXT NOT NULL,
    idempotency_key TEXT,
    request_hash    BYTEA NOT NULL,
    event_json      BYTEA NOT NULL,
    PRIMARY KEY (channel_id, sequence)
);
CREATE UNIQUE INDEX channel_events_idempotency ON channel_events(channel_id, author, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- One row per accepted action. Not tied to channels by a foreign key: the record of a deleted
-- channel outlives it. id only grows (rows are never deleted), so it orders a channel's actions.
CREATE TABLE channel_audit (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         BIGINT NOT NULL,             -- ms epoch
    channel_id TEXT NOT NULL,
    event_id   TEXT NOT NULL DEFAULT '',
    actor      TEXT NOT NULL,
    action     TEXT NOT NULL
);
CREATE INDEX channel_audit_by_channel ON channel_audit(channel_id, id);

-- The hub's own settings for channels: the random key that signs history page tokens.
CREATE TABLE channel_settings (
    name  TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);

-- What each principal has stored in channels, for the per-principal quotas (quota.go): the count
-- and bytes of the events it wrote, kept by triggers in the transaction that stores or deletes an
-- event (a channel's deletion deletes its events by cascade, which fires them too).
CREATE TABLE channel_usage (
    principal_id TEXT PRIMARY KEY,
    events       BIGINT NOT NULL,
    bytes        BIGINT NOT NULL            -- of event_json as stored
);

-- +goose StatementBegin
CREATE FUNCTION channel_usage_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO channel_usage(principal_id, events, bytes) VALUES (NEW.author, 1, octet_length(NEW.event_json))
        ON CONFLICT(principal_id) DO UPDATE SET events = channel_usage.events + 1,
            bytes = channel_usage.bytes + octet_length(NEW.event_json);
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER channel_usage_insert AFTER INSERT ON channel_events
    FOR EACH ROW EXECUTE FUNCTION channel_usage_insert();

-- +goose StatementBegin
CREATE FUNCTION channel_usage_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE channel_usage SET events = events - 1, bytes = bytes - octet_length(OLD.event_json)
        WHERE principal_id = OLD.author;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER channel_usage_delete AFTER DELETE ON channel_events
    FOR EACH ROW EXECUTE FUNCTION channel_usage_delete();

-- +goose Down
DROP TABLE channel_usage;
DROP TABLE channel_settings;
DROP TABLE channel_audit;
DROP TABLE channel_events;
DROP TABLE channel_members;
DROP TABLE channels;
DROP FUNCTION channel_usage_delete();
DROP FUNCTION channel_usage_insert();
