package channels_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/channels"
)

const (
	codeNotFound   = -32020
	codeDenied     = -32021
	codeConflict   = -32022
	codeLimit      = -32023
	codeRateLimit  = -32024
	codeBadParams  = -32602
	unknownChannel = "6f1c1d3e-0000-4000-8000-000000000000"
)

func TestCardAdvertisesChannels(t *testing.T) {
	h := startHub(t, "")
	res, err := http.Get(h.Agent.LocalURL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var card struct {
		Capabilities struct {
			Messaging struct {
				Channels struct {
					Version  string   `json:"version"`
					Features []string `json:"features"`
				} `json:"channels"`
			} `json:"messaging"`
			Extensions []struct {
				URI string `json:"uri"`
			} `json:"extensions"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &card); err != nil {
		t.Fatal(err)
	}
	ch := card.Capabilities.Messaging.Channels
	if ch.Version != "0.1" {
		t.Fatalf("capabilities.messaging.channels: %s", raw)
	}
	for _, f := range []string{"create", "publish", "history", "stream", "membership"} {
		if !slices.Contains(ch.Features, f) {
			t.Fatalf("feature %q missing from %v", f, ch.Features)
		}
	}
	found := false
	for _, e := range card.Capabilities.Extensions {
		found = found || e.URI == channels.ExtensionURI
	}
	if !found {
		t.Fatalf("capabilities.extensions lacks %s: %s", channels.ExtensionURI, raw)
	}
}

// A private channel answers a non-member exactly as an id that does not exist, on every method.
func TestPrivateChannelNeverLeaks(t *testing.T) {
	h := startHub(t, "")
	alice, bob := h.principal(t, "alice"), h.principal(t, "bob")
	c := alice.create(map[string]any{"name": "secret"})
	alice.publish(c.ID, "hello")

	calls := []struct {
		method string
		params func(id string) map[string]any
	}{
		{"channels/get", func(id string) map[string]any { return map[string]any{"channelId": id} }},
		{"channels/publish", func(id string) map[string]any {
			return map[string]any{"channelId": id, "parts": []any{map[string]any{"type": "text", "text": "x"}}}
		}},
		{"channels/history", func(id string) map[string]any { return map[string]any{"channelId": id} }},
		{"channels/update", func(id string) map[string]any {
			return map[string]any{"channelId": id, "expectedVersion": 1, "name": "mine"}
		}},
		{"channels/delete", func(id string) map[string]any { return map[string]any{"channelId": id} }},
		{"channels/addMember", func(id string) map[string]any { return map[string]any{"channelId": id, "principalId": "agent://bob"} }},
		{"channels/removeMember", func(id string) map[string]any {
			return map[string]any{"channelId": id, "principalId": "agent://alice"}
		}},
	}
	for _, call := range calls {
		real := bob.fails(codeNotFound, call.method, call.params(c.ID))
		missing := bob.fails(codeNotFound, call.method, call.params(unknownChannel))
		if strings.ReplaceAll(real, c.ID, "ID") != strings.ReplaceAll(missing, unknownChannel, "ID") {
			t.Fatalf("%s: %q for the private channel, %q for a missing one", call.method, real, missing)
		}
	}
	if _, e := bob.stream(map[string]any{"channelId": c.ID}); e == nil || e.Code != codeNotFound {
		t.Fatalf("channels/stream of a private channel by a non-member: %+v", e)
	}
	if _, e := bob.stream(map[string]any{"channelId": unknownChannel}); e == nil || e.Code != codeNotFound {
		t.Fatalf("channels/stream of a missing channel: %+v", e)
	}
	// Streams take the same credentials as unary calls: none (anonymous is off here) is -32030.
	anon := &principal{t: t, url: h.URL, ID: "anonymous"}
	if _, e := anon.stream(map[string]any{"channelId": c.ID}); e == nil || e.Code != -32030 {
		t.Fatalf("channels/stream without a key: %+v", e)
	}
	if _, e := (&principal{t: t, url: h.URL, key: "wrong", ID: "?"}).stream(map[string]any{"channelId": c.ID}); e == nil || e.Code != -32030 {
		t.Fatalf("channels/stream with a wrong key: %+v", e)
	}
	var list struct{ Channels []channel }
	bob.ok("channels/list", map[string]any{}, &list)
	if len(list.Channels) != 0 {
		t.Fatalf("bob lists %+v", list.Channels)
	}
	// Nothing bob tried changed the channel.
	var got struct{ Channel channel }
	alice.ok("channels/get", map[string]any{"channelId": c.ID}, &got)
	if got.Channel.Version != 1 || got.Channel.Name != "secret" || len(got.Channel.Members) != 1 {
		t.Fatalf("after bob's attempts: %+v", got.Channel)
	}
}

// Public channels are readable by every principal; writing takes membership.
func TestPublicChannelReadableByAll(t *testing.T) {
	h := startHub(t, "")
	alice, bob := h.principal(t, "alice"), h.principal(t, "bob")
	c := alice.create(map[string]any{"name": "lobby", "visibility": "public"})
	alice.publish(c.ID, "welcome")
	var got struct{ Channel channel }
	bob.ok("channels/get", map[string]any{"channelId": c.ID}, &got)
	if got.Channel.Visibility != "public" || got.Channel.Kind != "channel" {
		t.Fatalf("public channel as bob: %+v", got.Channel)
	}
	if p := bob.history(map[string]any{"channelId": c.ID}); len(p.Events) != 1 {
		t.Fatalf("bob's history: %+v", p)
	}
	var list struct{ Channels []channel }
	bob.ok("channels/list", map[string]any{}, &list)
	if len(list.Channels) != 1 || list.Channels[0].ID != c.ID {
		t.Fatalf("bob lists %+v", list.Channels)
	}
	bob.fails(codeDenied, "channels/publish", map[string]any{"channelId": c.ID, "parts": []any{map[string]any{"type": "text", "text": "hi"}}})
	bob.fails(codeDenied, "channels/update", map[string]any{"channelId": c.ID, "expectedVersion": 1, "name": "mine"})
	bob.fails(codeDenied, "channels/delete", map[string]any{"channelId": c.ID})
	bob.fails(codeDenied, "channels/addMember", map[string]any{"channelId": c.ID, "principalId": bob.ID})
}

func TestMembershipUpdateAndDelete(t *testing.T) {
	h := startHub(t, "")
	alice, bob, carol := h.principal(t, "alice"), h.principal(t, "bob"), h.principal(t, "carol")
	c := alice.create(map[string]any{"name": "team", "metadata": map[string]any{"project": "alpha", "old": true}})
	if c.Version != 1 || c.CreatedBy != alice.ID || len(c.Members) != 1 || c.Members[0].Role != "owner" {
		t.Fatalf("created: %+v", c)
	}
	var r struct{ Channel channel }
	alice.ok("channels/addMember", map[string]any{"channelId": c.ID, "principalId": bob.ID}, &r)
	if r.Channel.Version != 2 || len(r.Channel.Members) != 2 {
		t.Fatalf("after addMember: %+v", r.Channel)
	}
	// Membership changes are the owners'.
	bob.fails(codeDenied, "channels/addMember", map[string]any{"channelId": c.ID, "principalId": carol.ID})
	bob.fails(codeDenied, "channels/removeMember", map[string]any{"channelId": c.ID, "principalId": alice.ID})
	bob.fails(codeDenied, "channels/update", map[string]any{"channelId": c.ID, "expectedVersion": 2, "name": "bob's"})
	bob.fails(codeDenied, "channels/delete", map[string]any{"channelId": c.ID})
	// The last owner stays.
	alice.fails(codeConflict, "channels/removeMember", map[string]any{"channelId": c.ID, "principalId": alice.ID})
	alice.fails(codeBadParams, "channels/addMember", map[string]any{"channelId": c.ID, "principalId": "not a principal"})
	// Optimistic update.
	alice.fails(codeConflict, "channels/update", map[string]any{"channelId": c.ID, "expectedVersion": 1, "name": "stale"})
	alice.fails(codeBadParams, "channels/update", map[string]any{"channelId": c.ID, "name": "no version"})
	alice.ok("channels/update", map[string]any{"channelId": c.ID, "expectedVersion": 2, "name": "team-2",
		"metadataPatch": map[string]any{"set": map[string]any{"phase": "iteration"}, "remove": []string{"old"}}}, &r)
	if r.Channel.Version != 3 || r.Channel.Name != "team-2" || r.Channel.Metadata["phase"] != "iteration" ||
		r.Channel.Metadata["project"] != "alpha" || r.Channel.Metadata["old"] != nil {
		t.Fatalf("after update: %+v", r.Channel)
	}
	// A second owner may then remove the first.
	alice.ok("channels/addMember", map[string]any{"channelId": c.ID, "principalId": bob.ID, "role": "owner"}, &r)
	bob.ok("channels/removeMember", map[string]any{"channelId": c.ID, "principalId": alice.ID}, &r)
	if r.Channel.Version != 5 || len(r.Channel.Members) != 1 || r.Channel.Members[0].PrincipalID != bob.ID {
		t.Fatalf("after bob removed alice: %+v", r.Channel)
	}
	alice.fails(codeNotFound, "channels/get", map[string]any{"channelId": c.ID})
	bob.publish(c.ID, "still here")
	bob.ok("channels/delete", map[string]any{"channelId": c.ID}, nil)
	bob.fails(codeNotFound, "channels/get", map[string]any{"channelId": c.ID})
	bob.fails(codeNotFound, "channels/history", map[string]any{"channelId": c.ID})

	// One audit row per action, with its actor.
	audit, err := h.Channels.Audit(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range audit {
		got = append(got, a.Actor+" "+a.Action)
		if a.Action == "publish" && a.EventID == "" {
			t.Fatalf("publish audited without its event: %+v", a)
		}
	}
	want := []string{"agent://alice create", "agent://alice addMember:agent://bob", "agent://alice update",
		"agent://alice addMember:agent://bob", "agent://bob removeMember:agent://alice", "agent://bob publish", "agent://bob delete"}
	if !slices.Equal(got, want) {
		t.Fatalf("audit:\n got %q\nwant %q", got, want)
	}
}

// The owner (no principal in ctx: the hub itself, the UI) is a principal like the others.
func TestOwnerUsesTheSameRules(t *testing.T) {
	h := startHub(t, "")
	alice := h.principal(t, "alice")
	ctx := context.Background()
	c, err := h.Channels.Create(ctx, channels.CreateParams{Name: "owner's", Members: []string{alice.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if c.CreatedBy != "user://owner" {
		t.Fatalf("created by %s", c.CreatedBy)
	}
	alice.publish(c.ID, "hi owner")
	ev, err := h.Channels.Publish(ctx, channels.PublishParams{ChannelID: c.ID, Parts: []json.RawMessage{json.RawMessage(`{"type":"text","text":"hi alice"}`)}})
	if err != nil || ev.Sequence != 2 || ev.Author != "user://owner" {
		t.Fatalf("owner's publish: %+v %v", ev, err)
	}
	mallory := h.principal(t, "mallory")
	alice.fails(codeDenied, "channels/addMember", map[string]any{"channelId": c.ID, "principalId": mallory.ID})
	other := alice.create(map[string]any{"name": "alice's"})
	var e *channels.Error
	if _, err := h.Channels.Get(ctx, other.ID); !errorsAs(err, &e) || e.Code != codeNotFound {
		t.Fatalf("the owner reading alice's private channel: %v", err)
	}
}

func errorsAs(err error, e **channels.Error) bool {
	ce, ok := err.(*channels.Error)
	*e = ce
	return ok
}

func TestPublishSequencesUnderConcurrency(t *testing.T) {
	h := startHub(t, "")
	alice, bob := h.principal(t, "alice"), h.principal(t, "bob")
	c := alice.create(map[string]any{"name": "busy", "members": []string{bob.ID}})
	const writers, each = 8, 15
	var wg sync.WaitGroup
	for w := range writers {
		p := alice
		if w%2 == 1 {
			p = bob
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				res, e := p.rpc("channels/publish", map[string]any{"channelId": c.ID, "parts": []any{map[string]any{"type": "text", "text": fmt.Sprint(w, "-", i)}}})
				if e != nil {
					t.Errorf("publish: %d %s (%s)", e.Code, e.Message, res)
				}
			}
		}()
	}
	wg.Wait()
	var all []event
	token := ""
	for {
		params := map[string]any{"channelId": c.ID, "pageSize": 37}
		if token != "" {
			params["pageToken"] = token
		}
		p := alice.history(params)
		all = append(all, p.Events...)
		if token = p.NextPageToken; token == "" {
			break
		}
	}
	if len(all) != writers*each {
		t.Fatalf("%d events, want %d", len(all), writers*each)
	}
	seen := map[string]bool{}
	for i, ev := range all {
		if ev.Sequence != int64(i+1) || ev.ChannelID != c.ID || ev.Kind != "messageEvent" {
			t.Fatalf("event %d: %+v", i, ev)
		}
		text := string(ev.Parts[0])
		if seen[text] {
			t.Fatalf("%s stored twice", text)
		}
		seen[text] = true
	}
}

func TestIdempotencyKey(t *testing.T) {
	h := startHub(t, "")
	alice := h.principal(t, "alice")
	c := alice.create(map[string]any{})
	first := map[string]any{"channelId": c.ID, "idempotencyKey": "k-1", "parts": []any{map[string]any{"type": "text", "text": "once"}},
		"metadata": map[string]any{"a": 1, "b": 2}}
	var r1, r2 struct{ Event event }
	alice.ok("channels/publish", first, &r1)
	// The same request again (its metadata keys in another order) is the original event.
	again := `{"channelId":"` + c.ID + `","metadata":{"b":2,"a":1},"parts":[{"text":"once","type":"text"}],"idempotencyKey":"k-1"}`
	alice.ok("channels/publish", json.RawMessage(again), &r2)
	if r1.Event.ID == "" || r2.Event.ID != r1.Event.ID || r2.Event.Sequence != 1 || r2.Event.Timestamp != r1.Event.Timestamp {
		t.Fatalf("retry answered %+v, first was %+v", r2.Event, r1.Event)
	}
	msg := alice.fails(codeConflict, "channels/publish", map[string]any{"channelId": c.ID, "idempotencyKey": "k-1",
		"parts": []any{map[string]any{"type": "text", "text": "something else"}}})
	if !strings.Contains(msg, "idempotency") {
		t.Fatalf("conflict message: %s", msg)
	}
	if next := alice.publish(c.ID, "next"); next.Sequence != 2 {
		t.Fatalf("the retry took a sequence: next is %d", next.Sequence)
	}
}

func TestDirectChannels(t *testing.T) {
	h := startHub(t, "")
	alice, bob, carol := h.principal(t, "alice"), h.principal(t, "bob"), h.principal(t, "carol")
	var r struct{ Event event }
	bob.ok("channels/publish", map[string]any{"recipientId": alice.ID, "parts": []any{map[string]any{"type": "text", "text": "hi alice"}}}, &r)
	sum := sha256.Sum256([]byte("agent://alice,agent://bob"))
	want := "chan:direct:" + hex.EncodeToString(sum[:])[:24]
	if r.Event.ChannelID != want || r.Event.Sequence != 1 {
		t.Fatalf("direct event: %+v, want channel %s", r.Event, want)
	}
	// Either side reaches it by id or by naming the other.
	alice.ok("channels/publish", map[string]any{"recipientId": bob.ID, "channelId": want, "parts": []any{map[string]any{"type": "text", "text": "hi bob"}}}, &r)
	if r.Event.Sequence != 2 {
		t.Fatalf("alice's reply: %+v", r.Event)
	}
	if p := alice.history(map[string]any{"channelId": want}); len(p.Events) != 2 {
		t.Fatalf("history: %+v", p)
	}
	var got struct{ Channel channel }
	alice.ok("channels/get", map[string]any{"channelId": want}, &got)
	if len(got.Channel.Members) != 2 || got.Channel.Visibility != "private" {
		t.Fatalf("direct channel: %+v", got.Channel)
	}
	// Never listed, never a third member, invisible to others.
	var list struct{ Channels []channel }
	alice.ok("channels/list", map[string]any{}, &list)
	if len(list.Channels) != 0 {
		t.Fatalf("alice lists %+v", list.Channels)
	}
	alice.fails(codeDenied, "channels/addMember", map[string]any{"channelId": want, "principalId": carol.ID})
	alice.fails(codeDenied, "channels/removeMember", map[string]any{"channelId": want, "principalId": bob.ID})
	carol.fails(codeNotFound, "channels/get", map[string]any{"channelId": want})
	carol.fails(codeNotFound, "channels/publish", map[string]any{"channelId": want, "parts": []any{map[string]any{"type": "text", "text": "me too"}}})
	alice.fails(codeBadParams, "channels/publish", map[string]any{"recipientId": alice.ID, "parts": []any{map[string]any{"type": "text", "text": "self"}}})
	alice.fails(codeBadParams, "channels/publish", map[string]any{"recipientId": carol.ID, "channelId": want, "parts": []any{map[string]any{"type": "text", "text": "x"}}})
}

func TestHistoryPagingAndFilters(t *testing.T) {
	dir := t.TempDir()
	h := startHub(t, dir)
	alice, bob := h.principal(t, "alice"), h.principal(t, "bob")
	c := alice.create(map[string]any{"members": []string{bob.ID}})
	other := alice.create(map[string]any{})
	for i := range 205 {
		if i%5 == 0 {
			bob.publish(c.ID, fmt.Sprint(i))
		} else {
			alice.publish(c.ID, fmt.Sprint(i))
		}
	}
	if p := alice.history(map[string]any{"channelId": c.ID}); len(p.Events) != 50 || p.NextPageToken == "" {
		t.Fatalf("default page: %d events", len(p.Events))
	}
	if p := alice.history(map[string]any{"channelId": c.ID, "pageSize": 1000}); len(p.Events) != 200 {
		t.Fatalf("pageSize 1000: %d events, want it clamped to 200", len(p.Events))
	}
	if p := alice.history(map[string]any{"channelId": c.ID, "pageSize": -3}); len(p.Events) != 1 {
		t.Fatalf("pageSize -3: %d events, want it clamped to 1", len(p.Events))
	}
	p := alice.history(map[string]any{"channelId": c.ID, "sinceSequence": 198, "pageSize": 3})
	if len(p.Events) != 3 || p.Events[0].Sequence != 199 || p.NextPageToken == "" {
		t.Fatalf("since 198: %+v", p)
	}
	p2 := alice.history(map[string]any{"channelId": c.ID, "pageToken": p.NextPageToken, "pageSize": 3})
	if len(p2.Events) != 3 || p2.Events[0].Sequence != 202 || p2.NextPageToken == "" {
		t.Fatalf("second page: %+v", p2)
	}
	p3 := alice.history(map[string]any{"channelId": c.ID, "pageToken": p2.NextPageToken, "pageSize": 3})
	if len(p3.Events) != 1 || p3.Events[0].Sequence != 205 || p3.NextPageToken != "" {
		t.Fatalf("last page: %+v", p3)
	}
	// authorIds, carried by the token to later pages.
	b := alice.history(map[string]any{"channelId": c.ID, "authorIds": []string{bob.ID}, "pageSize": 30})
	b2 := alice.history(map[string]any{"channelId": c.ID, "pageToken": b.NextPageToken, "pageSize": 30})
	if len(b.Events) != 30 || len(b2.Events) != 11 {
		t.Fatalf("bob's events: %d then %d, want 30 then 11", len(b.Events), len(b2.Events))
	}
	for _, ev := range append(b.Events, b2.Events...) {
		if ev.Author != bob.ID {
			t.Fatalf("authorIds filter let %s through", ev.Author)
		}
	}
	// sinceTimestamp: at or after the timestamp.
	ts := p3.Events[0].Timestamp
	for _, ev := range alice.history(map[string]any{"channelId": c.ID, "sinceTimestamp": ts, "pageSize": 200}).Events {
		if ev.Timestamp < ts {
			t.Fatalf("sinceTimestamp %d let %+v through", ts, ev)
		}
	}
	alice.fails(codeBadParams, "channels/history", map[string]any{"channelId": c.ID, "sinceSequence": 1, "sinceTimestamp": ts})
	// Tampered, foreign-channel and garbage tokens.
	tok := p.NextPageToken
	body, sig, _ := strings.Cut(tok, ".")
	tampered := body[:len(body)-2] + flip(body[len(body)-2]) + body[len(body)-1:] + "." + sig
	for _, bad := range []string{tampered, body + "." + flip(sig[0]) + sig[1:], "garbage", tok + "x"} {
		alice.fails(codeBadParams, "channels/history", map[string]any{"channelId": c.ID, "pageToken": bad})
	}
	alice.fails(codeBadParams, "channels/history", map[string]any{"channelId": other.ID, "pageToken": tok})
	alice.fails(codeBadParams, "channels/history", map[string]any{"channelId": c.ID, "pageToken": tok, "sinceSequence": 3})

	// The key is kept: the token still works after a restart; another hub's tokens do not.
	h.Stop()
	h = startHub(t, dir)
	alice = &principal{t: t, url: h.URL, key: alice.key, ID: alice.ID}
	if again := alice.history(map[string]any{"channelId": c.ID, "pageToken": tok, "pageSize": 3}); again.Events[0].Sequence != 202 {
		t.Fatalf("token after restart: %+v", again)
	}
	h2 := startHub(t, "")
	carol := h2.principal(t, "alice")
	c2 := carol.create(map[string]any{})
	forged := strings.Replace(tok, body, encodeCursor(t, c2.ID), 1)
	carol.fails(codeBadParams, "channels/history", map[string]any{"channelId": c2.ID, "pageToken": forged})
}

func flip(b byte) string {
	if b == 'A' {
		return "B"
	}
	return "A"
}

// encodeCursor is a token body naming channel id (without the signing key it cannot be signed).
func encodeCursor(t *testing.T, id string) string {
	raw, _ := json.Marshal(map[string]any{"c": id, "a": 0})
	return base64.RawURLEncoding.EncodeToString(raw)
}

func TestLimitsAndRateLimit(t *testing.T) {
	h := startHub(t, "")
	alice := h.principal(t, "alice")
	text := map[string]any{"type": "text", "text": "x"}
	alice.fails(codeLimit, "channels/create", map[string]any{"name": strings.Repeat("n", 129)})
	c := alice.create(map[string]any{"name": strings.Repeat("é", 128)})
	alice.fails(codeLimit, "channels/create", map[string]any{"metadata": map[string]any{"big": strings.Repeat("m", 16*1024)}})
	alice.fails(codeLimit, "channels/update", map[string]any{"channelId": c.ID, "expectedVersion": 1,
		"metadataPatch": map[string]any{"set": map[string]any{"big": strings.Repeat("m", 16*1024)}}})
	alice.fails(codeLimit, "channels/update", map[string]any{"channelId": c.ID, "expectedVersion": 1, "name": strings.Repeat("n", 129)})
	alice.fails(codeLimit, "channels/publish", map[string]any{"channelId": c.ID, "parts": slices.Repeat([]any{text}, 33)})
	alice.ok("channels/publish", map[string]any{"channelId": c.ID, "parts": slices.Repeat([]any{text}, 32)}, nil)
	alice.fails(codeLimit, "channels/publish", map[string]any{"channelId": c.ID, "parts": []any{text}, "idempotencyKey": strings.Repeat("k", 129)})
	alice.ok("channels/publish", map[string]any{"channelId": c.ID, "parts": []any{text}, "idempotencyKey": strings.Repeat("k", 128)}, nil)
	alice.fails(codeLimit, "channels/publish", map[string]any{"channelId": c.ID, "parts": []any{text}, "metadata": map[string]any{"big": strings.Repeat("m", 16*1024)}})
	// Within the 8 MiB body, but stored JSON escapes each '<' as six bytes: a 9 MiB event no stream
	// could carry whole is refused, and nothing is stored.
	before := alice.history(map[string]any{"channelId": c.ID})
	alice.fails(codeLimit, "channels/publish", map[string]any{"channelId": c.ID,
		"parts": []any{map[string]any{"type": "text", "text": strings.Repeat("<", 1536*1024)}}})
	if after := alice.history(map[string]any{"channelId": c.ID}); len(after.Events) != len(before.Events) {
		t.Fatalf("a refused publish stored an event: %d events, then %d", len(before.Events), len(after.Events))
	}
	alice.fails(codeBadParams, "channels/publish", map[string]any{"channelId": c.ID, "parts": []any{}})
	alice.fails(codeBadParams, "channels/publish", map[string]any{"channelId": c.ID, "parts": "nope"})
	alice.fails(codeBadParams, "channels/create", map[string]any{"visibility": "secret"})

	// Rate limit per principal, on publish and history; another principal is not slowed.
	h.Channels.SetRateLimit(0.001, 3)
	bob := h.principal(t, "bob")
	for range 3 {
		alice.publish(c.ID, "within")
	}
	alice.fails(codeRateLimit, "channels/publish", map[string]any{"channelId": c.ID, "parts": []any{text}})
	alice.fails(codeRateLimit, "channels/history", map[string]any{"channelId": c.ID})
	bc := bob.create(map[string]any{})
	bob.history(map[string]any{"channelId": bc.ID})
}

// A caller without a key (loopback, anonymous policy "send") reads public channels and nothing else.
func TestAnonymousReadsPublicOnly(t *testing.T) {
	h := startHub(t, "")
	if err := h.Auth.SetAnonymousPolicy(context.Background(), auth.AnonymousSend); err != nil {
		t.Fatal(err)
	}
	alice := h.principal(t, "alice")
	anon := &principal{t: t, url: h.URL, ID: "anonymous"}
	pub := alice.create(map[string]any{"visibility": "public"})
	priv := alice.create(map[string]any{})
	alice.publish(pub.ID, "hello all")
	if p := anon.history(map[string]any{"channelId": pub.ID}); len(p.Events) != 1 {
		t.Fatalf("anonymous history of a public channel: %+v", p)
	}
	anon.fails(codeNotFound, "channels/get", map[string]any{"channelId": priv.ID})
	anon.fails(codeDenied, "channels/create", map[string]any{})
	anon.fails(codeDenied, "channels/publish", map[string]any{"channelId": pub.ID, "parts": []any{map[string]any{"type": "text", "text": "hi"}}})
	anon.fails(codeDenied, "channels/publish", map[string]any{"recipientId": alice.ID, "parts": []any{map[string]any{"type": "text", "text": "hi"}}})
}

// channels/history reads a page and the caller's access in one statement, and tells an empty
// answer apart: past the last event a reader gets an empty page, a caller who may not read the
// channel ChannelNotFound, whether or not it has events there, with or without an author filter.
func TestHistoryAccessWithThePage(t *testing.T) {
	h := startHub(t, "")
	alice, bob := h.principal(t, "alice"), h.principal(t, "bob")
	private := alice.create(map[string]any{"name": "private"})
	public := alice.create(map[string]any{"name": "public", "visibility": "public"})
	empty := alice.create(map[string]any{"name": "empty"})
	for i := range 3 {
		alice.publish(private.ID, fmt.Sprint("p", i))
		alice.publish(public.ID, fmt.Sprint("q", i))
	}
	for _, params := range []map[string]any{
		{"channelId": private.ID},
		{"channelId": private.ID, "sinceSequence": 99},
		{"channelId": private.ID, "authorIds": []string{alice.ID}},
		{"channelId": empty.ID},
	} {
		bob.fails(codeNotFound, "channels/history", params)
	}
	if pg := bob.history(map[string]any{"channelId": public.ID, "pageSize": 2}); len(pg.Events) != 2 || pg.NextPageToken == "" {
		t.Fatalf("a public channel read by a non-member: %+v", pg)
	}
	for _, params := range []map[string]any{
		{"channelId": private.ID, "sinceSequence": 3},
		{"channelId": empty.ID},
		{"channelId": private.ID, "authorIds": []string{bob.ID}},
	} {
		if pg := alice.history(params); len(pg.Events) != 0 || pg.NextPageToken != "" {
			t.Fatalf("%v: %+v, want an empty page", params, pg)
		}
	}
	// Pages end to end, with the token, as written.
	var seqs []int64
	params := map[string]any{"channelId": private.ID, "pageSize": 2}
	for {
		pg := alice.history(params)
		for _, ev := range pg.Events {
			seqs = append(seqs, ev.Sequence)
		}
		if pg.NextPageToken == "" {
			break
		}
		params = map[string]any{"channelId": private.ID, "pageSize": 2, "pageToken": pg.NextPageToken}
	}
	if !slices.Equal(seqs, []int64{1, 2, 3}) {
		t.Fatalf("paged sequences %v", seqs)
	}
}
