package channels

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Channel is the spec's Channel object.
type Channel struct {
	ID         string         `json:"id"`
	Name       string         `json:"name,omitempty"`
	Visibility string         `json:"visibility"`
	CreatedAt  int64          `json:"createdAt"`
	CreatedBy  string         `json:"createdBy"`
	Members    []Member       `json:"members"`
	Metadata   map[string]any `json:"metadata"`
	Version    int64          `json:"version"`
	Kind       string         `json:"kind"`
	// LastSequence is the sequence of the newest event (0: none yet), for a client to resume from.
	LastSequence int64 `json:"lastSequence"`
}

// CreateParams are channels/create's params.
type CreateParams struct {
	Name       string         `json:"name"`
	Visibility string         `json:"visibility"`
	Metadata   map[string]any `json:"metadata"`
	// Members are principals added as members beside the caller, who is the owner.
	Members []string `json:"members"`
}

// Create makes a channel owned by the caller.
func (s *Service) Create(ctx context.Context, p CreateParams) (*Channel, error) {
	who := caller(ctx)
	if err := mustWrite(who); err != nil {
		return nil, err
	}
	if err := checkName(p.Name); err != nil {
		return nil, err
	}
	vis, err := checkVisibility(p.Visibility)
	if err != nil {
		return nil, err
	}
	meta, err := checkMetadata(p.Metadata)
	if err != nil {
		return nil, err
	}
	for _, m := range p.Members {
		if _, err := s.checkMember(ctx, who, m); err != nil {
			return nil, err
		}
	}
	id, now := uuid.NewString(), s.millis()
	err = s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO channels(id, name, visibility, direct, created_at, created_by, metadata, version)
			VALUES (?, ?, ?, 0, ?, ?, ?, 1)`, id, p.Name, vis, now, who.ID, meta); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO channel_members(channel_id, principal_id, role, joined_at) VALUES (?, ?, 'owner', ?)`, id, who.ID, now); err != nil {
			return err
		}
		for _, m := range p.Members {
			if _, err := tx.ExecContext(ctx, `INSERT INTO channel_members(channel_id, principal_id, role, joined_at) VALUES (?, ?, 'member', ?)
				ON CONFLICT DO NOTHING`, id, m, now); err != nil {
				return err
			}
		}
		if err := audit(ctx, tx, now, id, "", who.ID, "create"); err != nil {
			return err
		}
		return s.announce(tx, id, &Change{Created: true})
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}

// Get reads a channel the caller may see.
func (s *Service) Get(ctx context.Context, id string) (*Channel, error) {
	c, err := load(ctx, s.db.Reader, id, caller(ctx))
	if err != nil {
		return nil, err
	}
	return &c.Channel, nil
}

// List is every channel the caller is a member of, and every public one; never a direct channel.
func (s *Service) List(ctx context.Context) ([]*Channel, error) {
	who := caller(ctx)
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT id FROM channels c WHERE direct = 0 AND (visibility = 'public'
		OR EXISTS (SELECT 1 FROM channel_members m WHERE m.channel_id = c.id AND m.principal_id = ?)) ORDER BY created_at, id`, who.ID)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := []*Channel{}
	for _, id := range ids {
		c, err := load(ctx, s.db.Reader, id, who)
		var e *Error
		if errors.As(err, &e) && e.Code == CodeChannelNotFound {
			continue // deleted or left since the query
		}
		if err != nil {
			return nil, err
		}
		out = append(out, &c.Channel)
	}
	return out, nil
}

// MetadataPatch sets and removes metadata keys.
type MetadataPatch struct {
	Set    map[string]any `json:"set"`
	Remove []string       `json:"remove"`
}

// UpdateParams are channels/update's params.
type UpdateParams struct {
	ChannelID       string         `json:"channelId"`
	ExpectedVersion *int64         `json:"expectedVersion"`
	Name            *string        `json:"name"`
	Visibility      string         `json:"visibility"`
	MetadataPatch   *MetadataPatch `json:"metadataPatch"`
}

// Update changes a channel's name, visibility or metadata, if it is still at ExpectedVersion.
func (s *Service) Update(ctx context.Context, p UpdateParams) (*Channel, error) {
	who := caller(ctx)
	if p.ChannelID == "" {
		return nil, invalid("channelId is required")
	}
	if p.ExpectedVersion == nil {
		return nil, invalid("expectedVersion is required")
	}
	if p.Name != nil {
		if err := checkName(*p.Name); err != nil {
			return nil, err
		}
	}
	if p.Visibility != "" {
		if _, err := checkVisibility(p.Visibility); err != nil {
			return nil, err
		}
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		c, err := load(ctx, tx, p.ChannelID, who)
		if err != nil {
			return err
		}
		if err := c.requireOwner(); err != nil {
			return err
		}
		wasPublic := c.Visibility == "public"
		if c.Version != *p.ExpectedVersion {
			return errorf(CodeConflict, "conflict: channel %s is at version %d, not %d", c.ID, c.Version, *p.ExpectedVersion)
		}
		name, vis, meta := c.Name, c.Visibility, c.Metadata
		if p.Name != nil {
			name = *p.Name
		}
		if p.Visibility != "" {
			vis = p.Visibility
		}
		if meta == nil {
			meta = map[string]any{}
		}
		if p.MetadataPatch != nil {
			for _, k := range p.MetadataPatch.Remove {
				delete(meta, k)
			}
			for k, v := range p.MetadataPatch.Set {
				meta[k] = v
			}
		}
		raw, err := checkMetadata(meta)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE channels SET name = ?, visibility = ?, metadata = ?, version = version + 1 WHERE id = ?`,
			name, vis, raw, c.ID); err != nil {
			return err
		}
		if err := audit(ctx, tx, s.millis(), c.ID, "", who.ID, "update"); err != nil {
			return err
		}
		return s.announce(tx, c.ID, &Change{Updated: true, WasPublic: wasPublic})
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, p.ChannelID)
}

// Delete removes a channel, its members and its events.
func (s *Service) Delete(ctx context.Context, id string) error {
	who := caller(ctx)
	return s.write(ctx, func(tx *sql.Tx) error {
		c, err := load(ctx, tx, id, who)
		if err != nil {
			return err
		}
		if err := c.requireOwner(); err != nil {
			return err
		}
		gone := &Change{Deleted: true, WasPublic: c.Visibility == "public"}
		for _, m := range c.Members {
			gone.Members = append(gone.Members, m.PrincipalID)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM channels WHERE id = ?`, id); err != nil {
			return err
		}
		if err := audit(ctx, tx, s.millis(), id, "", who.ID, "delete"); err != nil {
			return err
		}
		delete(s.seqs, id)
		return s.announce(tx, id, gone)
	})
}

func checkName(name string) error {
	if utf8.RuneCountInString(name) > MaxNameLen {
		return errorf(CodeLimitExceeded, "limit exceeded: a channel name is at most %d characters", MaxNameLen)
	}
	return nil
}

func checkMetadata(m map[string]any) ([]byte, error) {
	if m == nil {
		m = map[string]any{}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, invalid("metadata: %v", err)
	}
	if len(raw) > MaxMetadataBytes {
		return nil, errorf(CodeLimitExceeded, "limit exceeded: metadata is at most %d bytes serialized, this is %d", MaxMetadataBytes, len(raw))
	}
	return raw, nil
}

func checkVisibility(v string) (string, error) {
	switch v {
	case "":
		return "private", nil
	case "private", "public":
		return v, nil
	}
	return "", invalid(`visibility is "private" or "public"`)
}
