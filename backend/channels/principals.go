package channels

import (
	"context"
	"database/sql"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
)

// Directory is what the channels ask of the hub's principals (auth.Principals).
type Directory interface {
	// Known says whether agent://name is an active principal.
	Known(ctx context.Context, name string) (bool, error)
	// AddedAt maps each active principal's id to when its name was last added.
	AddedAt(ctx context.Context) (map[string]time.Time, error)
}

// SetPrincipals lets the channels tell an agent://NAME that some principal holds from one nobody
// holds, and find the other party of a direct channel named by its id. A member or recipient
// nobody holds is refused, since accepting it would hand its access to whoever is given the name
// later. Without it every well-formed id is taken, and only the owner is found by a direct id.
func (s *Service) SetPrincipals(d Directory) {
	s.directory.Store(&d)
}

// checkKnown refuses an agent://NAME that no active principal holds (-32602). The owner is always
// known; added agents (remote://ID) are checked by checkMember.
func (s *Service) checkKnown(ctx context.Context, p auth.Principal) error {
	d := s.directory.Load()
	if p.Kind != auth.KindAgent || d == nil {
		return nil
	}
	ok, err := (*d).Known(ctx, p.Name)
	if err != nil {
		return err
	}
	if !ok {
		return invalid("%s is not a principal of this hub", p.ID)
	}
	return nil
}

// ForgetFormer removes the memberships that belong to no current principal: those of an
// agent://NAME not in addedAt (removed), and those made before the name's current holder was added
// (removed and added again while the hub was not running, by `agenthub principals`). Each channel's
// version goes up, the removal is audited as the owner's, and its streams end. It returns how many
// memberships it removed.
func (s *Service) ForgetFormer(ctx context.Context, addedAt map[string]time.Time) (int, error) {
	type membership struct {
		channel, principal string
	}
	var stale []membership
	err := s.write(ctx, func(tx *sql.Tx) error {
		stale = nil // the transaction may run again
		// The agent://NAME members: a range of the principal index in SQLite, whose text order is
		// bytewise; PostgreSQL orders text by the database's collation, where a locale's order (which
		// skips punctuation) would put agent://x outside that range, so it asks for the prefix.
		query := `SELECT channel_id, principal_id, joined_at FROM channel_members
			WHERE principal_id >= 'agent://' AND principal_id < 'agent:/0' ORDER BY channel_id, principal_id`
		if s.db.Postgres() {
			query = `SELECT channel_id, principal_id, joined_at FROM channel_members
			WHERE starts_with(principal_id, 'agent://') ORDER BY channel_id, principal_id`
		}
		rows, err := tx.QueryContext(ctx, query)
		if err != nil {
			return err
		}
		for rows.Next() {
			var m membership
			var joined int64
			if err := rows.Scan(&m.channel, &m.principal, &joined); err != nil {
				rows.Close()
				return err
			}
			if added, ok := addedAt[m.principal]; !ok || joined < added.UnixMilli() {
				stale = append(stale, m)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		now := s.millis()
		for _, m := range stale {
			if err := removeMembership(ctx, tx, now, m.channel, m.principal); err != nil {
				return err
			}
		}
		for _, m := range stale {
			if err := s.announce(tx, m.channel, &Change{Removed: m.principal}); err != nil {
				return err
			}
		}
		return nil
	})
	return len(stale), err
}
