package hub

import (
	"context"
	"iter"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/inbox"
	"github.com/agenthub/agenthub/backend/knowledge"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/tasks"
)

// hubExecutor is the hub agent's executor: it hands each new message to the skill it is for. A
// question to the knowledge graph (knowledge.QuestionOf) is answered at once by the knowledge skill;
// everything else, and every turn of an existing task, goes to the owner's inbox as before.
type hubExecutor struct {
	inbox *inbox.Inbox
	// knowledge is the hub's graph; nil until the extensions are open (they open after the executor,
	// before the hub serves a request), or when the hub has none.
	knowledge func() *knowledge.Service
}

var (
	_ a2asrv.AgentExecutor = hubExecutor{}
	_ tasks.Resumer        = hubExecutor{}
	_ server.FollowUps     = hubExecutor{}
	_ server.BlockingBound = hubExecutor{}
	_ server.Admitter      = hubExecutor{}
)

func (e hubExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	if ec.StoredTask == nil {
		if _, ok := knowledge.QuestionOf(ec.Message); ok {
			if kg := e.knowledge(); kg != nil {
				return kg.Execute(ctx, ec)
			}
		}
	}
	return e.inbox.Execute(ctx, ec)
}

// Cancel: a knowledge task ends as it starts, so a task still open is the inbox's.
func (e hubExecutor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return e.inbox.Cancel(ctx, ec)
}

func (e hubExecutor) Resume(ctx context.Context, t *a2a.Task) bool { return e.inbox.Resume(ctx, t) }

func (e hubExecutor) FollowUp(ctx context.Context, msg *a2a.Message) (bool, error) {
	return e.inbox.FollowUp(ctx, msg)
}

// BlockingWait bounds a blocking send as the inbox needs; a knowledge question ends its turn first.
func (e hubExecutor) BlockingWait() time.Duration { return e.inbox.BlockingWait() }

// Admit holds every caller to the inbox's quota, knowledge questions included: each is a task kept.
func (e hubExecutor) Admit(ctx context.Context, msg *a2a.Message) error {
	return e.inbox.Admit(ctx, msg)
}
