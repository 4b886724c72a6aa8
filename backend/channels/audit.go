package channels

import (
	"context"
	"database/sql"
	"strings"
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

// MemberEntry is one join or leave of a channel as its audit rows record it: who was added (Joined)
// or removed, by whom, when. The UI shows them in the channel as system lines.
type MemberEntry struct {
	At        int64  `json:"at"`
	Actor     string `json:"actor"`
	Principal string `json:"principal"`
	Joined    bool   `json:"joined"`
}

// MemberLog is the joins and leaves of a channel the caller may see, oldest first, from its audit
// rows: the members it was created with (the creation's one row names none: they are the members
// that joined at its creation, and those whose first row is a removal), then each addMember and
// removeMember; an addMember of someone already in is a change of role, not a join, and is left out.
func (s *Service) MemberLog(ctx context.Context, id string) ([]MemberEntry, error) {
	c, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT at, actor, action FROM channel_audit
		WHERE channel_id = ? AND (action LIKE 'addMember:%' OR action LIKE 'removeMember:%') ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var changes []MemberEntry
	for rows.Next() {
		var e MemberEntry
		var action string
		if err := rows.Scan(&e.At, &e.Actor, &action); err != nil {
			return nil, err
		}
		if p, ok := strings.CutPrefix(action, "addMember:"); ok {
			e.Principal, e.Joined = p, true
		} else {
			e.Principal, _ = strings.CutPrefix(action, "removeMember:")
		}
		changes = append(changes, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Who was in from the start: the members that joined then, and whoever's first change is a removal.
	var out []MemberEntry
	in := map[string]bool{c.CreatedBy: true}
	initial := func(p string) {
		if !in[p] {
			in[p] = true
			out = append(out, MemberEntry{At: c.CreatedAt, Actor: c.CreatedBy, Principal: p, Joined: true})
		}
	}
	for _, m := range c.Members {
		if m.JoinedAt == c.CreatedAt {
			initial(m.PrincipalID)
		}
	}
	seen := map[string]bool{}
	for _, e := range changes {
		if !seen[e.Principal] && !e.Joined {
			initial(e.Principal)
		}
		seen[e.Principal] = true
	}
	for _, e := range changes {
		if e.Joined && in[e.Principal] {
			continue // a change of role
		}
		in[e.Principal] = e.Joined
		out = append(out, e)
	}
	return out, nil
}
