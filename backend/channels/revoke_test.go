package channels_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/agenthub/agenthub/backend/auth"
)

// gatewayCall makes one call on the hub's UI websocket (Settings → Access goes this way) and fails
// the test on an error.
func gatewayCall(t *testing.T, h *testHub, method string, params any) json.RawMessage {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(h.WSURL()+"?token="+url.QueryEscape(h.UIToken()), nil)
	if err != nil {
		t.Fatalf("dial the UI gateway: %v", err)
	}
	defer ws.Close()
	if err := ws.WriteJSON(map[string]any{"id": 1, "method": method, "params": params}); err != nil {
		t.Fatal(err)
	}
	for {
		var f struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct{ Message string }
		}
		if err := ws.ReadJSON(&f); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if f.ID == nil {
			continue // a pushed event
		}
		if f.Error != nil {
			t.Fatalf("%s: %s", method, f.Error.Message)
		}
		return f.Result
	}
}

// tokenOf trades p's key for a bearer token at the hub's token endpoint.
func tokenOf(t *testing.T, h *testHub, name, key string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", h.Agent.LocalURL+auth.TokenPath, strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(name, key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || body.AccessToken == "" {
		t.Fatalf("token: %d %v", res.StatusCode, err)
	}
	return body.AccessToken
}

// endsRevoked reads s to its end, skipping heartbeats and events sent before the revocation, and
// checks that its last item is -32030 and nothing follows it.
func endsRevoked(t *testing.T, s *sse) {
	t.Helper()
	for n := 0; ; n++ {
		if n == 300 { // heartbeats every 100 ms: half a minute of them
			t.Fatal("the stream still delivers after its credential was revoked")
		}
		_, e, ok := s.next()
		if !ok {
			t.Fatal("the stream ended without an error")
		}
		if e == nil {
			continue
		}
		if e.Code != -32030 {
			t.Fatalf("the stream ended with %d %s, want -32030", e.Code, e.Message)
		}
		break
	}
	if _, e, ok := s.next(); ok {
		t.Fatalf("an item after the stream's end: %v", e)
	}
}

// A key revoked while its streams are open ends them with -32030: removed the way
// `agenthub principals remove` does it (its own Principals on hub.db, nothing told but the
// database), rotated through Settings → Access, and a bearer token whose principal was removed.
// Both extensions' streams end: channels/stream and knowledge/subscribe. New events published after
// the revocation never reach the old stream.
func TestRevokedCredentialEndsItsOpenStreams(t *testing.T) {
	h := startHub(t, "")
	owner := h.principal(t, "owner-bot")
	ctx := context.Background()

	open := func(t *testing.T, p *principal, ch string) (*sse, *sse) {
		t.Helper()
		s, e := p.stream(map[string]any{"channelId": ch, "heartbeatIntervalMs": 100})
		if e != nil {
			t.Fatalf("stream: %v", e)
		}
		k, e := p.streamMethod("knowledge/subscribe", map[string]any{"subscriptionQuery": `subscription { changes { op changeId } }`})
		if e != nil {
			t.Fatalf("subscribe: %v", e)
		}
		p.publish(ch, "before")
		if ev := s.nextEvent(); ev.Author != p.ID {
			t.Fatalf("first event by %s", ev.Author)
		}
		return s, k
	}
	setUp := func(t *testing.T, name string) (*principal, string) {
		p := h.principal(t, name)
		c := owner.create(map[string]any{"name": name, "visibility": "private"})
		owner.ok("channels/addMember", map[string]any{"channelId": c.ID, "principalId": p.ID}, nil)
		return p, c.ID
	}

	t.Run("removed as the CLI does", func(t *testing.T) {
		p, ch := setUp(t, "erin")
		s, k := open(t, p, ch)
		cli, err := auth.OpenPrincipals(ctx, h.Agent.DB)
		if err != nil {
			t.Fatal(err)
		}
		if err := cli.Remove(ctx, "erin"); err != nil {
			t.Fatal(err)
		}
		endsRevoked(t, s)
		endsRevoked(t, k)
	})
	t.Run("rotated in Settings → Access", func(t *testing.T) {
		p, ch := setUp(t, "frank")
		s, k := open(t, p, ch)
		gatewayCall(t, h, "access.rotate", map[string]any{"name": "frank"})
		owner.publish(ch, "after the rotation")
		endsRevoked(t, s)
		endsRevoked(t, k)
	})
	t.Run("token of a principal removed in Settings → Access", func(t *testing.T) {
		p, ch := setUp(t, "gina")
		p.bearer = tokenOf(t, h, "gina", p.key)
		s, k := open(t, p, ch)
		gatewayCall(t, h, "access.remove", map[string]any{"name": "gina"})
		owner.publish(ch, "after the removal")
		endsRevoked(t, s)
		endsRevoked(t, k)
	})
}
