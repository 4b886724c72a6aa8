package agents

import (
	"encoding/json"
	"fmt"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/agents/wirelog"
)

// An agent may echo the owner's credentials back (a key quoted in a reply, a token in an error).
// What a Conn returns is masked by the wire log's own rule (wirelog.Masker.Text), so nothing the hub
// keeps or shows of an agent's answers carries the owner's secrets.

// maskEvent returns ev with every secret masked: through its JSON form, where the masker knows
// every encoding a secret may take. ev itself is not changed.
func maskEvent[T a2a.Event](m *wirelog.Masker, ev T) (T, error) {
	var zero T
	raw, err := json.Marshal(ev)
	if err != nil {
		return zero, err
	}
	masked := m.Text(string(raw))
	if masked == string(raw) {
		return ev, nil
	}
	var out a2a.Event
	switch a2a.Event(ev).(type) {
	case *a2a.Task:
		out = &a2a.Task{}
	case *a2a.Message:
		out = &a2a.Message{}
	case *a2a.TaskStatusUpdateEvent:
		out = &a2a.TaskStatusUpdateEvent{}
	case *a2a.TaskArtifactUpdateEvent:
		out = &a2a.TaskArtifactUpdateEvent{}
	default:
		return zero, fmt.Errorf("cannot mask secrets in a %T", ev)
	}
	if err := json.Unmarshal([]byte(masked), out); err != nil {
		return zero, fmt.Errorf("%w: masking secrets in the agent's answer: %v", a2a.ErrInvalidAgentResponse, err)
	}
	return out.(T), nil
}

// maskedError reads as err with every secret masked, and still is err to errors.Is and errors.As.
type maskedError struct {
	err error
	msg string
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }

func maskError(m *wirelog.Masker, err error) error {
	if err == nil {
		return nil
	}
	if msg := m.Text(err.Error()); msg != err.Error() {
		return &maskedError{err: err, msg: msg}
	}
	return err
}

// masked applies the Conn's masker, if it has one, to one result.
func masked[T a2a.Event](c *Conn, v T, err error) (T, error) {
	if c.masker == nil {
		return v, err
	}
	m, merr := c.masker()
	if merr != nil {
		var zero T
		return zero, merr
	}
	if err != nil {
		var zero T
		return zero, maskError(m, err)
	}
	return maskEvent(m, v)
}

// maskedSeq applies the Conn's masker to each event of a sequence.
func maskedSeq(c *Conn, seq iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	if c.masker == nil {
		return seq
	}
	return func(yield func(a2a.Event, error) bool) {
		for ev, err := range seq {
			ev, err = masked(c, ev, err)
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}
