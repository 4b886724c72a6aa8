package server

import (
	"encoding/json"
	"testing"
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
