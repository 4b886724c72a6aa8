package server_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// TestUnstorablePartsAreRefused: a message part that a2a-go would store in a shape it cannot read
// back (an empty file becomes {"raw":null}, an empty data list {"data":null}, a null part panics the
// executor) is refused with -32602 in every dialect, and nothing is stored: the task lists still read.
func TestUnstorablePartsAreRefused(t *testing.T) {
	a := startDemo(t)
	ctx := t.Context()

	client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{a2a.NewAgentInterface(a.URL, a2a.TransportProtocolJSONRPC)})
	if err != nil {
		t.Fatal(err)
	}
	empty := a2a.NewRawPart([]byte{})
	empty.Filename, empty.MediaType = "empty.txt", "text/plain"
	_, err = client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, empty)})
	if !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), "empty file") {
		t.Fatalf("v1.0 client, empty file: %v", err)
	}
	for _, err := range client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, empty)}) {
		if !errors.Is(err, a2a.ErrInvalidParams) {
			t.Fatalf("v1.0 client, streaming an empty file: %v", err)
		}
	}

	for _, c := range []struct{ name, body, want string }{
		{"v1.0 empty raw", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"raw":""}]}}}`, "empty file"},
		{"v1.0 empty raw beside an empty url", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"x"},{"raw":"","url":""}]}}}`, "parts[1] is an empty file"},
		{"v1.0 empty data list", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m3","role":"ROLE_USER","parts":[{"data":[]}]}}}`, "empty data list"},
		{"v1.0 null part", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m4","role":"ROLE_USER","parts":[null]}}}`, "parts[0] is null"},
		{"v1.0 url and raw both", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m5","role":"ROLE_USER","parts":[{"url":"http://x","raw":"AA=="}]}}}`, "exactly one"},
		{"v0.3 empty file bytes", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"m6","role":"user","kind":"message","parts":[{"kind":"file","file":{"bytes":""}}]}}}`, "Bytes or URI"},
		{"v0.3 null part", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"m7","role":"user","kind":"message","parts":[null]}}}`, "part"},
		{"v0.1 empty file bytes", `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"t8","message":{"role":"user","parts":[{"type":"file","file":{"bytes":""}}]}}}`, "file.bytes"},
	} {
		r := call(t, a.URL, c.body)
		if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, c.want) {
			t.Errorf("%s: got %+v, want -32602 mentioning %q", c.name, r.Error, c.want)
		}
	}
	// A streaming send gets the refusal as its stream's one event, before any task exists.
	for _, c := range []struct{ name, body string }{
		{"v1.0", `{"jsonrpc":"2.0","id":9,"method":"SendStreamingMessage","params":{"message":{"messageId":"m9","role":"ROLE_USER","parts":[{"raw":""}]}}}`},
		{"v1.0", `{"jsonrpc":"2.0","id":10,"method":"SendStreamingMessage","params":{"message":{"messageId":"m10","role":"ROLE_USER","parts":[null]}}}`},
	} {
		events := stream(t, a.URL, c.body)
		if len(events) != 1 || events[0].Error == nil || events[0].Error.Code != -32602 {
			t.Errorf("%s streaming send %s: %+v", c.name, c.body, events)
		}
	}

	list, err := a.Store.List(ctx, nil)
	if err != nil || len(list.Tasks) != 0 {
		t.Fatalf("after refused sends the store lists %v, %v; want no task and no error", list, err)
	}
	// A good send still works.
	if _, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("fine"))}); err != nil {
		t.Fatal(err)
	}
}
