package channels

import (
	"context"
	"strings"

	"github.com/agenthub/agenthub/backend/auth"
)

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
