package server

import (
	"context"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

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

// Admitter is an executor that may refuse a caller's message before anything of it is stored (a
// quota on what one principal may leave with the agent). Every dialect's send, a new task's or a
// later turn's, asks it first; the error is the caller's answer, in the caller's dialect.
type Admitter interface {
	Admit(ctx context.Context, msg *a2a.Message) error
}

// admitHandler asks the executor's Admit before any send goes further: it wraps every other
// handler, so a follow-up that the executor takes itself is admitted too.
type admitHandler struct {
	a2asrv.RequestHandler
	admit Admitter
}

func (h admitHandler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if req != nil && req.Message != nil {
		if err := h.admit.Admit(ctx, req.Message); err != nil {
			return nil, err
		}
	}
	return h.RequestHandler.SendMessage(ctx, req)
}

func (h admitHandler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	if req != nil && req.Message != nil {
		if err := h.admit.Admit(ctx, req.Message); err != nil {
			return func(yield func(a2a.Event, error) bool) { yield(nil, err) }
		}
	}
	return h.RequestHandler.SendStreamingMessage(ctx, req)
}
