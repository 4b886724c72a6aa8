package channels

import (
	"context"
	"database/sql"

	"github.com/agenthub/agenthub/backend/auth"
)

// Roles of a member.
const (
	RoleOwner  = "owner"
	RoleMember = "member"
)

// Member is the spec's ChannelMember object.
type Member struct {
	PrincipalID string `json:"principalId"`
	Role        string `json:"role"`
	JoinedAt    int64  `json:"joinedAt"`
}

// SetRemoteAgents lets the owner add added agents to channels as members remote://AGENT-ID: check
// answers whether agentID names one that may join (nil error), and why not otherwise. The hub's
// channel bridge speaks for those members.
func (s *Service) SetRemoteAgents(check func(ctx context.Context, agentID string) error) {
	s.remote.Store(&check)
}

// checkPrincipal validates a principal id named in params.
func checkPrincipal(id string) (auth.Principal, error) {
	p, ok := auth.ParseID(id)
	if !ok || p.Kind == auth.KindAnonymous {
		return auth.Principal{}, invalid("%q is not a principal id (agent://NAME, remote://AGENT-ID or user://owner)", id)
	}
	return p, nil
}

// checkMember validates a principal who calls to add as a member. An added agent (remote://ID)
// joins only by the owner's hand, since the hub then talks to it with the owner's credentials, and
// only if it is an agent the hub has; what the agent id names is checked after the caller's right,
// so others learn nothing of the owner's agents.
func (s *Service) checkMember(ctx context.Context, who auth.Principal, id string) (auth.Principal, error) {
	p, err := checkPrincipal(id)
	if err != nil {
		return p, err
	}
	if p.Kind != auth.KindRemote {
		return p, s.checkKnown(ctx, p)
	}
	if who.Kind != auth.KindOwner {
		return p, errorf(CodePermissionDenied, "permission denied: only the hub's owner adds an added agent (%s) to a channel", id)
	}
	check := s.remote.Load()
	if check == nil {
		return p, invalid("%s: this hub has no agents that can join a channel", id)
	}
	if err := (*check)(ctx, p.Name); err != nil {
		return p, invalid("%s cannot join a channel: %v", id, err)
	}
	return p, nil
}

// AddMember adds principal to the channel with role (member by default), or changes their role.
func (s *Service) AddMember(ctx context.Context, id, principal, role string) (*Channel, error) {
	who := caller(ctx)
	p, err := s.checkMember(ctx, who, principal)
	if err != nil {
		return nil, err
	}
	switch role {
	case "":
		role = RoleMember
	case RoleMember, RoleOwner:
	default:
		return nil, invalid(`role is "owner" or "member"`)
	}
	if p.Kind == auth.KindRemote && role != RoleMember {
		return nil, invalid("an added agent (%s) is a member, never an owner", principal)
	}
	err = s.changeMembers(ctx, id, who, "addMember:"+principal, &Change{Added: principal}, func(tx *sql.Tx, c *channelRow) (bool, error) {
		current := c.roleOf(principal)
		if current == role {
			return false, nil // already so: nothing changes, the version stays
		}
		if current == RoleOwner && c.owners() == 1 {
			return false, errorf(CodeConflict, "conflict: %s is the last owner of %s", principal, id)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO channel_members(channel_id, principal_id, role, joined_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(channel_id, principal_id) DO UPDATE SET role = excluded.role`, id, principal, role, s.millis())
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}

// changeMembers runs a membership change of channel id for who, an owner: change reports whether it
// changed anything; if it did, the channel's version goes up by one, the action is audited, all in
// the change's transaction, and what is announced once it commits.
func (s *Service) changeMembers(ctx context.Context, id string, who auth.Principal, action string, what *Change,
	change func(*sql.Tx, *channelRow) (bool, error)) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		c, err := load(ctx, tx, id, who)
		if err != nil {
			return err
		}
		if err := c.requireOwner(); err != nil {
			return err
		}
		changed, err := change(tx, c)
		if err != nil || !changed {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE channels SET version = version + 1 WHERE id = ?`, id); err != nil {
			return err
		}
		if err := audit(ctx, tx, s.millis(), id, "", who.ID, action); err != nil {
			return err
		}
		return s.announce(tx, id, what)
	})
}

// roleOf is principal's role in the channel, or "" for a non-member.
func (c *channelRow) roleOf(principal string) string {
	for _, m := range c.Members {
		if m.PrincipalID == principal {
			return m.Role
		}
	}
	return ""
}

func (c *channelRow) owners() int {
	n := 0
	for _, m := range c.Members {
		if m.Role == RoleOwner {
			n++
		}
	}
	return n
}

// Members are a channel's members, read without a caller's rights: for the hub's own work (the
// channel bridge), never for a request.
func (s *Service) Members(ctx context.Context, id string) ([]Member, error) {
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT principal_id, role, joined_at FROM channel_members WHERE channel_id = ? ORDER BY joined_at, principal_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Member
	for rows.Next() {
		var m Member
		if err := rows.Scan(&m.PrincipalID, &m.Role, &m.JoinedAt); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// RemoveMember removes principal from the channel; their open streams end.
func (s *Service) RemoveMember(ctx context.Context, id, principal string) (*Channel, error) {
	who := caller(ctx)
	if principal == "" {
		return nil, invalid("principalId is required")
	}
	err := s.changeMembers(ctx, id, who, "removeMember:"+principal, &Change{Removed: principal}, func(tx *sql.Tx, c *channelRow) (bool, error) {
		switch role := c.roleOf(principal); {
		case role == "":
			return false, errorf(CodeConflict, "conflict: %s is not a member of %s", principal, id)
		case role == RoleOwner && c.owners() == 1:
			return false, errorf(CodeConflict, "conflict: %s is the last owner of %s and cannot be removed", principal, id)
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM channel_members WHERE channel_id = ? AND principal_id = ?`, id, principal)
		return err == nil, err
	})
	if err != nil {
		return nil, err
	}
	if principal == who.ID {
		return nil, nil
	}
	return s.Get(ctx, id)
}

// RemoveEverywhere removes principal from every channel it is a member of, for the hub's own work
// (an added agent the owner removed: the bridge can no longer speak for it), never for a request:
// each channel's version goes up, the removal is audited as the owner's, and its streams end. It
// returns the channels it left.
func (s *Service) RemoveEverywhere(ctx context.Context, principal string) ([]string, error) {
	var left []string
	err := s.write(ctx, func(tx *sql.Tx) error {
		left = nil // the transaction may run again
		rows, err := tx.QueryContext(ctx, `SELECT channel_id FROM channel_members WHERE principal_id = ? ORDER BY channel_id`, principal)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			left = append(left, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		now := s.millis()
		for _, id := range left {
			if err := removeMembership(ctx, tx, now, id, principal); err != nil {
				return err
			}
		}
		for _, id := range left {
			if err := s.announce(tx, id, &Change{Removed: principal}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return left, nil
}

// removeMembership takes principal out of channel id on the hub's own authority, as part of tx.
func removeMembership(ctx context.Context, tx *sql.Tx, now int64, id, principal string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM channel_members WHERE channel_id = ? AND principal_id = ?`, id, principal); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE channels SET version = version + 1 WHERE id = ?`, id); err != nil {
		return err
	}
	return audit(ctx, tx, now, id, "", auth.Owner.ID, "removeMember:"+principal)
}
