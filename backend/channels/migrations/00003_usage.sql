-- +goose Up
-- What each principal has stored in channels, for the per-principal quotas (quota.go): the count
-- and bytes of the events it wrote. Triggers keep it, in the transaction that stores or deletes an
-- event (a channel's deletion deletes its events by cascade, which fires them too), so a publish
-- reads one row to check its author's quota instead of summing the author's events.
CREATE TABLE channel_usage (
    principal_id TEXT PRIMARY KEY,
    events       INTEGER NOT NULL,
    bytes        INTEGER NOT NULL             -- of event_json as stored
) WITHOUT ROWID;
INSERT INTO channel_usage(principal_id, events, bytes)
    SELECT author, COUNT(*), SUM(length(event_json)) FROM channel_events GROUP BY author;

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
DROP TRIGGER channel_usage_delete;
DROP TRIGGER channel_usage_insert;
DROP TABLE channel_usage;
