package channels

import (
	"context"
	"database/sql"
)

func audit(ctx context.Context, tx *sql.Tx, at int64, channelID, eventID, actor, action string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO channel_audit(at, channel_id, event_id, actor, action) VALUES (?, ?, ?, ?, ?)`,
		at, channelID, eventID, actor, action)
	return err
}

// AuditEntry is one audit row.
type AuditEntry struct {
	At        int64  `json:"at"`
	ChannelID string `json:"channelId"`
	EventID   string `json:"eventId,omitempty"`
	Actor     string `json:"actor"`
	Action    string `json:"action"`
}

// Audit lists the audit rows of a channel, oldest first (for the owner's UI).
func (s *Service) Audit(ctx context.Context, channelID string) ([]AuditEntry, error) {
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT at, channel_id, event_id, actor, action FROM channel_audit WHERE channel_id = ? ORDER BY id`, channelID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var a AuditEntry
		if err := rows.Scan(&a.At, &a.ChannelID, &a.EventID, &a.Actor, &a.Action); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
