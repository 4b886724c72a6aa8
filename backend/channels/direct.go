package channels

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/agenthub/agenthub/backend/auth"
)

// DirectPrefix starts the id of every direct channel.
const DirectPrefix = "chan:direct:"

// DirectID is the id of the direct channel between a and b: sha256 of the two ids sorted and
// joined by a comma, its first 24 hex digits.
func DirectID(a, b string) string {
	ids := []string{a, b}
	sort.Strings(ids)
	sum := sha256.Sum256([]byte(ids[0] + "," + ids[1]))
	return DirectPrefix + hex.EncodeToString(sum[:])[:24]
}

// ensureDirect creates the direct channel of a and b if it does not exist yet, and says whether it
// did.
func (s *Service) ensureDirect(ctx context.Context, tx *sql.Tx, id, a, b string, now int64) (bool, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO channels(id, name, visibility, direct, created_at, created_by, metadata, version)
		VALUES (?, '', 'private', 1, ?, ?, '{}', 1) ON CONFLICT DO NOTHING`, id, now, a)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	for _, m := range []string{a, b} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO channel_members(channel_id, principal_id, role, joined_at) VALUES (?, ?, 'member', ?)`, id, m, now); err != nil {
			return false, err
		}
	}
	return true, audit(ctx, tx, now, id, "", a, "createDirect")
}

// directPeer is the other party of the direct channel id of who when that channel does not exist
// yet, so that a client that derived the id from the spec (§5: chan:direct: and the SHA-256 of the
// two principal ids, sorted) reaches it without the hub's recipientId. "" when the channel already
// exists (publish's own checks apply) or when no principal the hub has makes id with who (publish
// then answers ChannelNotFound, as for any unknown id).
func (s *Service) directPeer(ctx context.Context, who auth.Principal, id string) (string, error) {
	if _, err := access(ctx, s.pub.readAccess, id, who); err == nil {
		return "", nil
	}
	candidates := []string{auth.Owner.ID}
	if d := s.directory.Load(); d != nil {
		active, err := (*d).AddedAt(ctx)
		if err != nil {
			return "", err
		}
		for p := range active {
			candidates = append(candidates, p)
		}
	}
	for _, peer := range candidates {
		if peer != who.ID && DirectID(who.ID, peer) == id {
			return peer, nil
		}
	}
	return "", nil
}

// isDirect says whether id is a direct channel's.
func isDirect(id string) bool { return strings.HasPrefix(id, DirectPrefix) }
