package channels

import "context"

// eventsRead, when set (by tests), runs before each read of a channel's events by load.
var eventsRead func(channelID string)

// lastSequence is channel id's newest sequence (0: no events yet), read once the caller's access
// is known (load).
func lastSequence(ctx context.Context, q queryer, id string) (int64, error) {
	if eventsRead != nil {
		eventsRead(id)
	}
	var last int64
	err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(sequence), 0) FROM channel_events WHERE channel_id = ?`, id).Scan(&last)
	return last, err
}
