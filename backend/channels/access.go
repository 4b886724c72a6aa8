package channels

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/agenthub/agenthub/backend/auth"
)

// queryer is what both a transaction and the reader pool offer.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// accessQuery is channel ?2's visibility and the role of caller ?1 in it (NULL: not a member), the
// one question behind every access check; no row: the channel does not exist.
const accessQuery = `SELECT c.visibility, m.role FROM channels c
		LEFT JOIN channel_members m ON m.channel_id = c.id AND m.principal_id = ? WHERE c.id = ?`

type channelRow struct {
	Channel
	direct   bool
	callerIs string // the caller's role, "" if not a member
}

// load reads channel id and the caller's role. A channel the caller may not see (missing, or
// private and the caller not a member) is ChannelNotFound, decided before anything of its events
// is read (lastSequence), so that answer costs the same for a channel that exists as for one that
// does not, and its time does not tell a non-member which ids exist.
func load(ctx context.Context, q queryer, id string, who auth.Principal) (*channelRow, error) {
	c, err := loadVisible(ctx, q, id, who)
	if err != nil {
		return nil, err
	}
	if c.LastSequence, err = lastSequence(ctx, q, id); err != nil {
		return nil, err
	}
	return c, nil
}

// loadVisible is load without the channel's last sequence. It asks first whether the caller may see
// the channel, in one indexed query that costs the same whether the channel is missing or private
// to others; only then does it read the channel's metadata and members.
func loadVisible(ctx context.Context, q queryer, id string, who auth.Principal) (*channelRow, error) {
	var visibility string
	var role sql.NullString
	err := q.QueryRowContext(ctx, accessQuery, who.ID, id).Scan(&visibility, &role)
	switch {
	case errors.Is(err, sql.ErrNoRows), err == nil && !role.Valid && visibility != "public":
		return nil, notFound(id)
	case err != nil:
		return nil, err
	}
	var c channelRow
	var meta []byte
	var direct int
	err = q.QueryRowContext(ctx, `SELECT id, name, visibility, direct, created_at, created_by, metadata, version
		FROM channels WHERE id = ?`, id).Scan(&c.ID, &c.Name, &c.Visibility, &direct, &c.CreatedAt, &c.CreatedBy, &meta, &c.Version)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, err
	}
	c.direct, c.Kind = direct == 1, "channel"
	if err := json.Unmarshal(meta, &c.Metadata); err != nil {
		return nil, fmt.Errorf("channel %s: stored metadata: %w", id, err)
	}
	rows, err := q.QueryContext(ctx, `SELECT principal_id, role, joined_at FROM channel_members WHERE channel_id = ? ORDER BY joined_at, principal_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	c.Members = []Member{}
	for rows.Next() {
		var m Member
		if err := rows.Scan(&m.PrincipalID, &m.Role, &m.JoinedAt); err != nil {
			return nil, err
		}
		c.Members = append(c.Members, m)
		if m.PrincipalID == who.ID {
			c.callerIs = m.Role
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if c.callerIs == "" && c.Visibility != "public" {
		return nil, notFound(id)
	}
	return &c, nil
}

// requireMember refuses a caller who reads a public channel but is not in it.
func (c *channelRow) requireMember() error {
	if c.callerIs == "" {
		return errorf(CodePermissionDenied, "permission denied: only members of %s may do this", c.ID)
	}
	return nil
}

// requireOwner refuses any caller but an owner of the channel.
func (c *channelRow) requireOwner() error {
	if c.direct {
		return errorf(CodePermissionDenied, "permission denied: a direct channel has exactly its two members and no owner")
	}
	if c.callerIs != RoleOwner {
		return errorf(CodePermissionDenied, "permission denied: only an owner of %s may do this", c.ID)
	}
	return nil
}

// mayPublish refuses a publish by who to channel id with the answers load and requireMember give:
// a channel the caller may not see is ChannelNotFound, a public one they are not in PermissionDenied.
func mayPublish(ctx context.Context, st *sql.Stmt, id string, who auth.Principal) error {
	member, err := access(ctx, st, id, who)
	return memberOnly(id, member, err)
}

// memberOnly is mayPublish's answer from access's.
func memberOnly(id string, member bool, err error) error {
	if err == nil && !member {
		return errorf(CodePermissionDenied, "permission denied: only members of %s may do this", id)
	}
	return err
}

// access reads, in one query, what load decides: a channel the caller may not see (missing, or
// private and the caller not a member) is ChannelNotFound; member says whether the caller is in it.
func access(ctx context.Context, st *sql.Stmt, id string, who auth.Principal) (member bool, err error) {
	var visibility string
	var role sql.NullString
	err = st.QueryRowContext(ctx, who.ID, id).Scan(&visibility, &role)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, notFound(id)
	case err != nil:
		return false, err
	}
	return accessFrom(id, visibility, role)
}

// accessFrom is access's answer from the channel's visibility and the caller's role (NULL: not a
// member) as accessQuery reads them.
func accessFrom(id, visibility string, role sql.NullString) (member bool, err error) {
	if !role.Valid && visibility != "public" {
		return false, notFound(id)
	}
	return role.Valid, nil
}

// Readable says whether principal may read channel id now (it is a member, or the channel is
// public), in one prepared query: cheap enough to ask for every event a watcher hears of.
func (s *Service) Readable(ctx context.Context, id, principal string) bool {
	_, err := access(ctx, s.pub.readAccess, id, auth.Principal{ID: principal})
	return err == nil
}

// Concerns says whether principal may hear of change c to channel id: an event or a creation of a
// channel it may read, and any other change of a channel it could read before or can read after.
// Nothing about a private channel the principal is not in (and was not in) is ever its concern.
func (s *Service) Concerns(ctx context.Context, id string, c *Change, principal string) bool {
	switch {
	case c.Removed == principal || c.Added == principal:
		return true
	case c.Deleted:
		return c.WasPublic || slices.Contains(c.Members, principal)
	case c.Updated && c.WasPublic:
		return true
	}
	return s.Readable(ctx, id, principal)
}
