package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/google/uuid"

	hubpush "github.com/agenthub/agenthub/backend/push"
	"github.com/agenthub/agenthub/backend/tasks"
)

// draftDialect serves the v0.1 draft methods over the same request handler and stores as v1.0 and
// v0.3: it converts shapes at the edge and nothing else.
type draftDialect struct {
	handler   a2asrv.RequestHandler
	store     *tasks.Store
	keepAlive time.Duration
	admit     Admitter // nil: every message is taken (see Admitter)
}

type draftSendParams struct {
	ID               string           `json:"id"`
	SessionID        string           `json:"sessionId"`
	Message          json.RawMessage  `json:"message"`
	HistoryLength    *int             `json:"historyLength"`
	PushNotification *draftPushConfig `json:"pushNotification"`
	Metadata         map[string]any   `json:"metadata"`
}

type draftQueryParams struct {
	ID            string         `json:"id"`
	HistoryLength *int           `json:"historyLength"`
	Metadata      map[string]any `json:"metadata"`
}

func decodeParams(raw json.RawMessage, into any) error {
	if raw == nil {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return invalidParams(err.Error())
	}
	return nil
}

// prepareSend validates tasks/send params and makes sure the task exists: in the draft the client
// chooses the task id, so a new id creates the task (remembering it speaks v0.1) before a2a-go runs it.
func (d *draftDialect) prepareSend(ctx context.Context, raw json.RawMessage) (*a2a.SendMessageRequest, *draftSendParams, error) {
	var p draftSendParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, nil, err
	}
	if p.ID == "" {
		return nil, nil, invalidParams("id (the task id, chosen by the client) is required")
	}
	if p.Message == nil {
		return nil, nil, invalidParams("message is required")
	}
	if p.HistoryLength != nil && *p.HistoryLength < 0 {
		return nil, nil, invalidParams("historyLength must not be negative")
	}
	msg, err := fromDraftMessage(p.Message)
	if err != nil {
		return nil, nil, invalidParams(err.Error())
	}
	if p.PushNotification != nil {
		if err := validateDraftPush(ctx, p.PushNotification); err != nil {
			return nil, nil, err
		}
	}
	stored, err := d.store.Get(ctx, a2a.TaskID(p.ID))
	switch {
	case errors.Is(err, a2a.ErrTaskNotFound):
		// The draft's client names the task, so its row is made here, before the handler (and its
		// admission) sees the message: a new task is admitted first.
		if d.admit != nil {
			if err := d.admit.Admit(ctx, msg); err != nil {
				return nil, nil, err
			}
		}
		sessionID := p.SessionID
		if sessionID == "" {
			sessionID = uuid.NewString()
		}
		task := &a2a.Task{ID: a2a.TaskID(p.ID), ContextID: sessionID, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}, Metadata: p.Metadata}
		if _, err := d.store.Create(ctx, task); err != nil && !errors.Is(err, taskstore.ErrTaskAlreadyExists) {
			return nil, nil, err
		}
		msg.ContextID = sessionID
	case err != nil:
		return nil, nil, err
	default:
		if p.SessionID != "" && p.SessionID != stored.Task.ContextID {
			return nil, nil, invalidParams(fmt.Sprintf("task %s belongs to session %s, not %s", p.ID, stored.Task.ContextID, p.SessionID))
		}
		msg.ContextID = stored.Task.ContextID
	}
	msg.TaskID = a2a.TaskID(p.ID)
	req := &a2a.SendMessageRequest{Message: msg, Metadata: p.Metadata, Config: &a2a.SendMessageConfig{HistoryLength: p.HistoryLength}}
	if p.PushNotification != nil {
		req.Config.PushConfig = fromDraftPushConfig(p.PushNotification)
	}
	return req, &p, nil
}

// validateDraftPush checks a config before anything is stored: tasks/send creates the task before
// a2a-go saves the config, so a target refused only then would leave a task behind.
func validateDraftPush(ctx context.Context, c *draftPushConfig) error {
	if c.URL == "" {
		return invalidParams("pushNotification.url is required")
	}
	return hubpush.CheckTarget(ctx, c.URL, hubpush.LocalCaller(ctx))
}

func (d *draftDialect) send(ctx context.Context, r *request) (json.RawMessage, error) {
	req, p, err := d.prepareSend(ctx, r.Params)
	if err != nil {
		return nil, err
	}
	if _, err := d.handler.SendMessage(ctx, req); err != nil {
		return nil, err
	}
	return d.taskResult(ctx, r, p.ID, p.HistoryLength)
}

func (d *draftDialect) taskResult(ctx context.Context, r *request, id string, historyLength *int) (json.RawMessage, error) {
	stored, err := d.store.Get(ctx, a2a.TaskID(id))
	if err != nil {
		return nil, err
	}
	if historyLength != nil {
		tasks.TrimHistory(stored.Task, *historyLength)
	}
	return marshal(resultResponse(r.ID, toDraftTask(stored.Task))), nil
}

func (d *draftDialect) sendSubscribe(ctx context.Context, r *request, w http.ResponseWriter) {
	req, p, err := d.prepareSend(ctx, r.Params)
	if err != nil {
		writeJSON(w, http.StatusOK, errorResponse(r.ID, err))
		return
	}
	idx := artifactIndexes{}
	if stored, err := d.store.Get(ctx, a2a.TaskID(p.ID)); err == nil {
		for _, a := range stored.Task.Artifacts {
			idx.of(a.ID)
		}
	}
	d.streamEvents(ctx, r, w, idx, func(yield func(a2a.Event, error) bool) {
		for ev, err := range d.handler.SendStreamingMessage(ctx, req) {
			if !yield(ev, err) {
				return
			}
		}
	})
}

func (d *draftDialect) resubscribe(ctx context.Context, r *request, w http.ResponseWriter) {
	var p draftQueryParams
	if err := decodeParams(r.Params, &p); err != nil {
		writeJSON(w, http.StatusOK, errorResponse(r.ID, err))
		return
	}
	d.streamEvents(ctx, r, w, artifactIndexes{}, func(yield func(a2a.Event, error) bool) {
		for ev, err := range currentThenLive(ctx, d.store, a2a.TaskID(p.ID)) {
			if task, ok := ev.(*a2a.Task); ok {
				// The draft streams no whole task: the current state is its artifacts so far, then
				// its status.
				for _, a := range task.Artifacts {
					if !yield(&a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Artifact: a, LastChunk: true}, nil) {
						return
					}
				}
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	})
}

// streamEvents writes each event as a draft JSON-RPC response over SSE; an error ends the stream with
// a JSON-RPC error event.
func (d *draftDialect) streamEvents(ctx context.Context, r *request, w http.ResponseWriter, idx artifactIndexes, events func(func(a2a.Event, error) bool)) {
	sse, err := newSSEWriter(w)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, errorResponse(r.ID, err))
		return
	}
	sse.direct(ctx, d.keepAlive, func(ctx context.Context, write func(v any) error, _ func([]byte) error) {
		emit := func(v any) bool { return write(v) == nil } // fails once the client has gone
		events(func(ev a2a.Event, err error) bool {
			if err != nil {
				emit(errorResponse(r.ID, err))
				return false
			}
			if v := toDraftEvent(ev, idx); v != nil {
				return emit(resultResponse(r.ID, v))
			}
			return true
		})
	})
}

func (d *draftDialect) get(ctx context.Context, r *request) (json.RawMessage, error) {
	var p draftQueryParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.HistoryLength != nil && *p.HistoryLength < 0 {
		return nil, invalidParams("historyLength must not be negative")
	}
	return d.taskResult(ctx, r, p.ID, p.HistoryLength)
}

func (d *draftDialect) cancel(ctx context.Context, r *request) (json.RawMessage, error) {
	var p draftQueryParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if _, err := d.handler.CancelTask(ctx, &a2a.CancelTaskRequest{ID: a2a.TaskID(p.ID), Metadata: p.Metadata}); err != nil {
		return nil, err
	}
	return d.taskResult(ctx, r, p.ID, nil)
}

func (d *draftDialect) setPush(ctx context.Context, r *request) (json.RawMessage, error) {
	var p struct {
		ID                     string           `json:"id"`
		PushNotificationConfig *draftPushConfig `json:"pushNotificationConfig"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.ID == "" || p.PushNotificationConfig == nil {
		return nil, invalidParams("id and pushNotificationConfig are required")
	}
	if err := validateDraftPush(ctx, p.PushNotificationConfig); err != nil {
		return nil, err
	}
	pc := fromDraftPushConfig(p.PushNotificationConfig)
	pc.TaskID = a2a.TaskID(p.ID)
	saved, err := d.handler.CreateTaskPushConfig(ctx, pc)
	if err != nil {
		return nil, err
	}
	return marshal(resultResponse(r.ID, draftTaskPushConfig{ID: p.ID, PushNotificationConfig: toDraftPushConfig(saved)})), nil
}

func (d *draftDialect) getPush(ctx context.Context, r *request) (json.RawMessage, error) {
	var p draftQueryParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.ID == "" {
		return nil, invalidParams("id is required")
	}
	list, err := d.handler.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: a2a.TaskID(p.ID)})
	if err != nil {
		return nil, err
	}
	if len(list.Configs) == 0 {
		return nil, fmt.Errorf("%w: task %s has no push notification config", push.ErrPushConfigNotFound, p.ID)
	}
	return marshal(resultResponse(r.ID, draftTaskPushConfig{ID: p.ID, PushNotificationConfig: toDraftPushConfig(list.Configs[0])})), nil
}
