// Package demoagent is the demo A2A agent that ships with AgentHub, so a new user and every test have a
// peer that exercises a client fully: streaming with progress, cancellation, input-required turns,
// file and data artifacts, and chunked artifact streaming. Its card's skill examples say what to type.
package demoagent

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// MaxSlowSeconds bounds `slow N`.
const MaxSlowSeconds = 600

// Skills are the demo agent's card skills.
var Skills = []a2a.AgentSkill{
	{ID: "slow", Name: "Slow job", Description: "Works for N seconds (at most 600), reporting progress every second. Cancel it any time.",
		Tags: []string{"demo", "streaming", "cancel"}, Examples: []string{"slow 5"}},
	{ID: "ask", Name: "Ask back", Description: "Asks you a question (input-required) and finishes when you answer it.",
		Tags: []string{"demo", "input-required"}, Examples: []string{"ask"}},
	{ID: "file", Name: "File", Description: "Returns a small text file as an artifact.",
		Tags: []string{"demo", "file"}, Examples: []string{"file"}, OutputModes: []string{"text/plain"}},
	{ID: "data", Name: "Data", Description: "Returns a structured data part.",
		Tags: []string{"demo", "data"}, Examples: []string{"data"}, OutputModes: []string{"application/json"}},
	{ID: "plan", Name: "Plan a release (A2UI)", Description: "Answers with a form drawn in A2UI v0.9 (version, date, channel); submitting it updates the same form with a confirmation.",
		Tags: []string{"demo", "a2ui", "ui"}, Examples: []string{"plan a release"}, OutputModes: []string{A2UIMediaType, "text/plain"}},
	{ID: "plan-v08", Name: "Plan a release (A2UI v0.8)", Description: "The same form drawn in A2UI v0.8, the version many deployed agents still speak.",
		Tags: []string{"demo", "a2ui", "ui"}, Examples: []string{"plan a release v0.8"}, OutputModes: []string{A2UIMediaType, "text/plain"}},
	{ID: "echo", Name: "Echo", Description: "Anything else is echoed back, streamed in several chunks.",
		Tags: []string{"demo", "streaming"}, Examples: []string{"hello there, demo agent"}},
}

// Agent is the demo agent's executor.
type Agent struct {
	// Tick is the interval of `slow` progress and of echo chunks (a fifth of it between chunks); tests
	// shorten it. Zero (or less) sends the same events without pausing: the benchmark mode.
	Tick time.Duration
}

var _ a2asrv.AgentExecutor = (*Agent)(nil)

// New returns the demo agent with its normal pace.
func New() *Agent { return &Agent{Tick: time.Second} }

// Text joins the text parts of a message.
func Text(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.Content.(a2a.Text); ok {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(string(t))
		}
	}
	return b.String()
}

func (a *Agent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		text := strings.TrimSpace(Text(ec.Message))
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		} else if ec.StoredTask.Status.State == a2a.TaskStateInputRequired {
			if !a.a2uiAction(ec, yield) {
				a.answered(ec, text, yield)
			}
			return
		}
		cmd, arg, _ := strings.Cut(text, " ")
		switch strings.ToLower(cmd) {
		case "plan":
			a.planForm(ec, strings.HasSuffix(strings.ToLower(arg), "v0.8"), yield)
		case "slow":
			a.slow(ctx, ec, strings.TrimSpace(arg), yield)
		case "ask":
			q := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("What should I tell you back? Reply to this task with any text."))
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, q), nil)
		case "file":
			part := &a2a.Part{Content: a2a.Raw("Hello from the AgentHub demo agent.\nThis file was made at " + time.Now().UTC().Format(time.RFC3339) + ".\n"),
				Filename: "hello.txt", MediaType: "text/plain"}
			a.finish(ec, &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "hello.txt", Parts: a2a.ContentParts{part}}, yield)
		case "data":
			part := a2a.NewDataPart(map[string]any{"agent": "demo", "primes": []any{2, 3, 5, 7, 11}, "at": time.Now().UTC().Format(time.RFC3339)})
			part.MediaType = "application/json"
			a.finish(ec, &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "data", Parts: a2a.ContentParts{part}}, yield)
		default:
			a.echo(ctx, ec, text, yield)
		}
	}
}

func (a *Agent) working(ec *a2asrv.ExecutorContext, note string) *a2a.TaskStatusUpdateEvent {
	return a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(note)))
}

func (a *Agent) slow(ctx context.Context, ec *a2asrv.ExecutorContext, arg string, yield func(a2a.Event, error) bool) {
	n := 5
	if arg != "" {
		v, err := strconv.Atoi(arg)
		if err != nil || v < 1 || v > MaxSlowSeconds {
			msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(fmt.Sprintf("slow takes a whole number of seconds from 1 to %d, e.g. \"slow 5\".", MaxSlowSeconds)))
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateRejected, msg), nil)
			return
		}
		n = v
	}
	if !yield(a.working(ec, fmt.Sprintf("Working for %d seconds: 0/%d", n, n)), nil) {
		return
	}
	var tick <-chan time.Time
	if a.Tick > 0 {
		t := time.NewTicker(a.Tick)
		defer t.Stop()
		tick = t.C
	}
	for i := 1; i <= n; i++ {
		if !pause(ctx, tick, 0) {
			return // canceled: a2a-go applies the cancel event from Cancel
		}
		if i < n && !yield(a.working(ec, fmt.Sprintf("Working for %d seconds: %d/%d", n, i, n)), nil) {
			return
		}
	}
	a.finish(ec, &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "result", Parts: a2a.ContentParts{a2a.NewTextPart(fmt.Sprintf("Done after %d seconds.", n))}}, yield)
}

func (a *Agent) answered(ec *a2asrv.ExecutorContext, text string, yield func(a2a.Event, error) bool) {
	if !yield(a.working(ec, "Thanks, got your answer."), nil) {
		return
	}
	a.finish(ec, &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "answer", Parts: a2a.ContentParts{a2a.NewTextPart("You answered: " + text)}}, yield)
}

// echo streams the text back as one artifact in several appended chunks.
func (a *Agent) echo(ctx context.Context, ec *a2asrv.ExecutorContext, text string, yield func(a2a.Event, error) bool) {
	if !yield(a.working(ec, "Echoing."), nil) {
		return
	}
	chunks := chunk(text, 4)
	id := a2a.NewArtifactID()
	for i, c := range chunks {
		if i > 0 && !pause(ctx, nil, a.Tick/5) {
			return
		}
		ev := &a2a.TaskArtifactUpdateEvent{TaskID: ec.TaskID, ContextID: ec.ContextID, Append: i > 0, LastChunk: i == len(chunks)-1,
			Artifact: &a2a.Artifact{ID: id, Name: "echo", Parts: a2a.ContentParts{a2a.NewTextPart(c)}}}
		if !yield(ev, nil) {
			return
		}
	}
	yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
}

// pause waits for the next tick of tick, or for d when tick is nil, and reports whether ctx is still
// live. With neither (Tick 0) it does not wait at all.
func pause(ctx context.Context, tick <-chan time.Time, d time.Duration) bool {
	if tick == nil && d <= 0 {
		return ctx.Err() == nil
	}
	if tick == nil {
		t := time.NewTimer(d)
		defer t.Stop()
		tick = t.C
	}
	select {
	case <-ctx.Done():
		return false
	case <-tick:
		return true
	}
}

// chunk splits s into at most n pieces of roughly equal length on rune boundaries (at least one piece).
func chunk(s string, n int) []string {
	r := []rune(s)
	if len(r) == 0 {
		return []string{""}
	}
	size := (len(r) + n - 1) / n
	var out []string
	for len(r) > 0 {
		k := min(size, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

func (a *Agent) finish(ec *a2asrv.ExecutorContext, art *a2a.Artifact, yield func(a2a.Event, error) bool) {
	if !yield(&a2a.TaskArtifactUpdateEvent{TaskID: ec.TaskID, ContextID: ec.ContextID, Artifact: art, LastChunk: true}, nil) {
		return
	}
	yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
}

func (a *Agent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Canceled at your request."))
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, msg), nil)
	}
}
