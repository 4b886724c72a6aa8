-- +goose Up
-- channel_events becomes a rowid table. WITHOUT ROWID kept each whole event in the B-tree of its
-- key (channel_id, sequence), and SQLite reads a key's whole record, overflow pages and all, when a
-- search passes it: with a few events of a megabyte, finding a channel's last sequence read them
-- (0.8 ms for a get instead of 0.1 ms), and a channel's events made it slower to answer than an
-- unknown id. Now the key is in an index of its own and each event's JSON only in the table's rows,
-- read when a query asks for it.
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
);
INSERT INTO channel_events_new(channel_id, sequence, id, timestamp, author, idempotency_key, request_hash, event_json)
    SELECT channel_id, sequence, id, timestamp, author, idempotency_key, request_hash, event_json FROM channel_events
    ORDER BY channel_id, sequence;
DROP TABLE channel_events; -- and its triggers (00003), made again below
ALTER TABLE channel_events_new RENAME TO channel_events;
CREATE UNIQUE INDEX channel_events_idempotency ON channel_events(channel_id, author, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- +goose StatementBegin
CREATE TRIGGER channel_usage_insert AFTER INSERT ON channel_events
BEGIN
    INSERT INTO channel_usage(principal_id, events, bytes) VALUES (NEW.author, 1, length(NEW.event_json))
        ON CONFLICT(principal_id) DO UPDATE SET events = events + 1, bytes = bytes + length(NEW.event_json);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER channel_usage_delete AFTER DELETE ON channel_events
BEGIN
    UPDATE channel_usage SET events = events - 1, bytes = bytes - length(OLD.event_json) WHERE principal_id = OLD.author;
END;
-- +goose StatementEnd

-- +goose Down
CREATE TABLE channel_events_old (
    channel_id      TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    sequence        INTEGER NOT NULL,
    id              TEXT NOT NULL,
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
-- +goose StatementBegin
CREATE TRIGGER channel_usage_insert AFTER INSERT ON channel_events
BEGIN
    INSERT INTO channel_usage(principal_id, events, bytes) VALUES (NEW.author, 1, length(NEW.event_json))
        ON CONFLICT(principal_id) DO UPDATE SET events = events + 1, bytes = bytes + length(NEW.event_json);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER channel_usage_delete AFTER DELETE ON channel_events
BEGIN
    UPDATE channel_usage SET events = events - 1, bytes = bytes - length(OLD.event_json) WHERE principal_id = OLD.author;
END;
-- +goose StatementEnd
