-- +goose Up
-- Several replicas may publish to one channel: each publish now takes its sequence from
-- channels.last_seq, under the channel row's lock, in the transaction that stores the event
-- (publish.go). Bring the column up to the events already stored, which were numbered by
-- MAX(sequence) + 1 while last_seq stood still.
UPDATE channels SET last_seq = COALESCE((SELECT MAX(e.sequence) FROM channel_events e WHERE e.channel_id = channels.id), 0);

-- +goose Down
SELECT 1;
