package server

import (
	"context"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/tasks"
)

// Every dialect's send (v1.0 and v0.3 through a2a-go's transports, v0.1 through our adapter) reaches
// the one request handler, so this is where a message that could not be stored and read back is
// refused: as invalid params (-32602), before a task exists.

func (h durableSubscribe) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if req != nil {
		if err := tasks.CheckMessage(req.Message); err != nil {
			return nil, err
		}
	}
	return h.RequestHandler.SendMessage(ctx, req)
}

func (h durableSubscribe) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	if req != nil {
		if err := tasks.CheckMessage(req.Message); err != nil {
			return func(yield func(a2a.Event, error) bool) { yield(nil, err) }
		}
	}
	return h.RequestHandler.SendStreamingMessage(ctx, req)
}
