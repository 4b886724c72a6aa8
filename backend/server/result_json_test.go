package server

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// An extension's answer spliced around its encoded result is byte for byte the marshalled response.
func TestResultJSONIsTheMarshalledResponse(t *testing.T) {
	result, _ := json.Marshal(map[string]any{"events": []json.RawMessage{json.RawMessage(`{"text":"<a & b>"}`)}, "n": 1})
	for _, id := range []json.RawMessage{nil, json.RawMessage(`7`), json.RawMessage(`"req-<1>&"`), json.RawMessage(`null`), json.RawMessage(`-1.5e3`)} {
		want := marshal(&response{JSONRPC: "2.0", ID: id, Result: json.RawMessage(result)})
		if got := resultJSON(id, result); string(got) != string(want) {
			t.Fatalf("id %s:\ngot  %s\nwant %s", id, got, want)
		}
	}
}

// A RawResult is answered as it is, and marshals elsewhere (the UI gateway) as the JSON it holds.
func TestRawResultIsAnsweredAsItIs(t *testing.T) {
	pre := RawResult(`{"events":[{"id":"e1","text":"\u003cb\u003e"}],"nextPageToken":"t.s"}`)
	m := extensionMethod(ExtensionMethod{Call: func(context.Context, json.RawMessage) (any, error) { return pre, nil }}, time.Second)
	got, err := m.call(context.Background(), &request{ID: json.RawMessage(`3`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":3,"result":` + string(pre) + `}`; string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if again, err := json.Marshal(map[string]any{"result": pre}); err != nil || string(again) != `{"result":`+string(pre)+`}` {
		t.Fatalf("marshalled elsewhere: %s %v", again, err)
	}
}
