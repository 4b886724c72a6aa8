package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	a2alegacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"

	"github.com/agenthub/agenthub/backend/tasks"
)

// Checks and repairs at the edge, per method, for what the SDK's handlers get wrong or let through
// (each found by the official A2A TCK; see tck_test.go).

// prechecks runs each check in turn; the first error answers the request.
func prechecks(checks ...func(ctx context.Context, r *request) error) func(ctx context.Context, r *request) error {
	return func(ctx context.Context, r *request) error {
		for _, check := range checks {
			if err := check(ctx, r); err != nil {
				return err
			}
		}
		return nil
	}
}

// protoJSONNames rewrites v1.0 params written with proto field names (task_id, page_size,
// message_id, return_immediately…) to their lowerCamel JSON names. ProtoJSON parsers accept both, and
// the TCK sends task_id; a2a-go's decoder (encoding/json tags) knows only lowerCamel and silently drops
// the rest. A name already given in lowerCamel wins. Free-form values (metadata, a data part's data)
// are the sender's own JSON and are left alone.
func protoJSONNames(_ context.Context, r *request) error {
	if r.Params == nil || !mayHaveUnderscore(r.Params) {
		return nil
	}
	var v any
	if json.Unmarshal(r.Params, &v) != nil {
		return nil // the method reports malformed params in its own terms
	}
	if renameProtoFields(v) {
		r.Params = mustJSON(v)
	}
	return nil
}

// mayHaveUnderscore reports whether some key of params could hold an underscore: the bytes have one,
// or a \u escape that could be one. Most requests have neither, and skip decoding the whole params.
func mayHaveUnderscore(params []byte) bool {
	return bytes.IndexByte(params, '_') >= 0 || bytes.Contains(params, []byte(`\u`))
}

// freeForm are fields whose value is a google.protobuf.Struct or Value: user data, not proto fields.
var freeForm = map[string]bool{"metadata": true, "data": true}

func renameProtoFields(v any) (changed bool) {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if !freeForm[k] && renameProtoFields(val) {
				changed = true
			}
			if !strings.Contains(k, "_") {
				continue
			}
			camel := lowerCamel(k)
			if _, taken := t[camel]; !taken {
				t[camel] = val
			}
			delete(t, k)
			changed = true
		}
	case []any:
		for _, item := range t {
			if renameProtoFields(item) {
				changed = true
			}
		}
	}
	return changed
}

func lowerCamel(s string) string {
	parts := strings.Split(s, "_")
	var b strings.Builder
	b.WriteString(parts[0])
	for _, p := range parts[1:] {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

// listTasksParams refuses what v1.0 ListTasks must refuse with InvalidParams but the SDK's decoding
// cannot tell from "not given": pageSize 0 (the proto's minimum is 1; the store reads 0 as "default")
// and a status that is not a task state (the store would filter on it and find nothing).
func listTasksParams(_ context.Context, r *request) error {
	var p struct {
		PageSize *json.RawMessage `json:"pageSize"`
		Status   *string          `json:"status"`
	}
	if r.Params == nil || json.Unmarshal(r.Params, &p) != nil {
		return nil
	}
	if p.PageSize != nil {
		var n int
		if json.Unmarshal(*p.PageSize, &n) != nil || n < 1 || n > 100 {
			return invalidParams(fmt.Sprintf("pageSize must be an integer from 1 to 100, got %s", *p.PageSize))
		}
	}
	if p.Status != nil && !knownState[a2a.TaskState(*p.Status)] {
		return invalidParams(fmt.Sprintf("status %q is not a task state (TASK_STATE_WORKING, TASK_STATE_COMPLETED, …)", *p.Status))
	}
	return nil
}

var knownState = map[a2a.TaskState]bool{
	a2a.TaskStateUnspecified: true, a2a.TaskStateSubmitted: true, a2a.TaskStateWorking: true,
	a2a.TaskStateInputRequired: true, a2a.TaskStateAuthRequired: true, a2a.TaskStateCompleted: true,
	a2a.TaskStateCanceled: true, a2a.TaskStateFailed: true, a2a.TaskStateRejected: true,
}

// busyTaskGuard refuses, with UnsupportedOperationError (-32004), a message naming (at the JSON path
// given) a task that is submitted or working: the agent is on its turn and takes the next message
// once it asks for input or ends. a2a-go answers that with a bare internal error (-32603 "task
// execution is already in progress"), which tells the client it is the server's fault.
func busyTaskGuard(store *tasks.Store, path ...string) func(ctx context.Context, r *request) error {
	return func(ctx context.Context, r *request) error {
		id, ok := r.stringAt(path...)
		if !ok {
			return nil
		}
		stored, err := store.Get(ctx, a2a.TaskID(id))
		if err != nil {
			return nil
		}
		// The state in words every dialect shares (the guard runs before the dialect's error shaping).
		switch stored.Task.Status.State {
		case a2a.TaskStateSubmitted, a2a.TaskStateWorking:
			return fmt.Errorf("%w: task %s is working on its turn and takes another message only once it asks for input or ends; follow it with a stream or by polling",
				a2a.ErrUnsupportedOperation, id)
		}
		return nil
	}
}

// stringAt reads the non-empty string at a JSON path of params.
func stringAt(params json.RawMessage, path ...string) (string, bool) {
	raw := params
	for _, key := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return "", false
		}
		raw = obj[key]
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || s == "" {
		return "", false
	}
	return s, true
}

// withResult rewrites the result of a successful unary call.
func withResult(call func(ctx context.Context, r *request) (json.RawMessage, error), fix func(json.RawMessage) json.RawMessage) func(ctx context.Context, r *request) (json.RawMessage, error) {
	return func(ctx context.Context, r *request) (json.RawMessage, error) {
		raw, err := call(ctx, r)
		if err != nil {
			return nil, err
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil {
			return nil, err
		}
		return marshal(&response{JSONRPC: "2.0", ID: r.ID, Result: fix(resp.Result)}), nil
	}
}

// v0.3 tasks/pushNotificationConfig/list answers an array (TaskPushNotificationConfig[]), never null.
func emptyListNotNull(result json.RawMessage) json.RawMessage {
	if len(result) == 0 || string(result) == "null" {
		return json.RawMessage("[]")
	}
	return result
}

// v0.3 tasks/pushNotificationConfig/delete answers null on success.
func nullResult(json.RawMessage) json.RawMessage { return json.RawMessage("null") }

// v03GetPushConfig serves v0.3 tasks/pushNotificationConfig/get without a pushNotificationConfigId,
// which v0.3 allows ("Server will return one of the associated configurations if config id is not
// specified") and a2a-go refuses: it answers the task's first config. With an id it is the SDK's.
func v03GetPushConfig(handler a2asrv.RequestHandler, sdk func(ctx context.Context, r *request) (json.RawMessage, error)) func(ctx context.Context, r *request) (json.RawMessage, error) {
	return func(ctx context.Context, r *request) (json.RawMessage, error) {
		var p a2alegacy.GetTaskPushConfigParams
		if r.Params == nil || json.Unmarshal(r.Params, &p) != nil || p.ConfigID != "" || p.TaskID == "" {
			return sdk(ctx, r)
		}
		list, err := handler.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: a2a.TaskID(p.TaskID)})
		if err != nil {
			return nil, err
		}
		if len(list.Configs) == 0 {
			return nil, fmt.Errorf("%w: task %s has no push notification config", push.ErrPushConfigNotFound, p.TaskID)
		}
		return marshal(resultResponse(r.ID, a2av0.FromV1PushConfig(list.Configs[0]))), nil
	}
}

// subscribableTask refuses, before any stream opens, a subscription to a task that does not exist
// (TaskNotFoundError, -32001, in every dialect, as the shared tasks/resubscribe already is) or, in
// v1.0, one that has ended (UnsupportedOperationError, -32004; v0.3 and v0.1 replay its log instead).
func subscribableTask(store *tasks.Store) func(ctx context.Context, r *request) error {
	return func(ctx context.Context, r *request) error {
		id, ok := r.stringAt("id")
		if !ok {
			return nil
		}
		if _, err := store.Get(ctx, a2a.TaskID(id)); errors.Is(err, a2a.ErrTaskNotFound) {
			return fmt.Errorf("%w: %s", a2a.ErrTaskNotFound, id)
		}
		return openTaskGuard(store, "id")(ctx, r)
	}
}
