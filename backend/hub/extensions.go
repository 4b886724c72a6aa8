package hub

import (
	"context"

	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/server"
)

// openExtensions opens the extensions the hub serves on its JSON-RPC endpoint, over its database,
// and keeps each one on h for the UI gateway. Each extension package owns its tables and its
// rules; this is only where they are plugged in.
func (h *Hub) openExtensions(ctx context.Context, env ExtensionEnv) ([]server.Extension, error) {
	var exts []server.Extension
	ch, err := channels.Open(ctx, env.DB, env.Bus, env.Source, env.Logger)
	if err != nil {
		return nil, err
	}
	h.Channels = ch
	exts = append(exts, ch)
	return exts, nil
}
