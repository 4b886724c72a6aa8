package auth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/bus"
)

func TestAnonymousPolicyDefaultsToSendAndPersists(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if got := f.svc.AnonymousPolicy(); got != AnonymousSend {
		t.Fatalf("a new hub's policy is %q, want %q", got, AnonymousSend)
	}
	for _, p := range []AnonymousPolicy{AnonymousOff, AnonymousReadPublic, AnonymousSend, AnonymousOff} {
		if err := f.svc.SetAnonymousPolicy(ctx, p); err != nil {
			t.Fatalf("set %q: %v", p, err)
		}
		if got := f.svc.AnonymousPolicy(); got != p {
			t.Fatalf("after setting %q the policy is %q", p, got)
		}
	}
	// A restart reads it back from hub.db.
	if got := f.open(t).AnonymousPolicy(); got != AnonymousOff {
		t.Fatalf("reopened: policy %q, want %q", got, AnonymousOff)
	}
}

func TestAnonymousPolicyRefusesUnknownValues(t *testing.T) {
	f := newFixture(t)
	for _, bad := range []AnonymousPolicy{"", "Send", "on", "read"} {
		err := f.svc.SetAnonymousPolicy(context.Background(), bad)
		if !errors.Is(err, ErrBadPolicy) {
			t.Errorf("set %q: error %v, want ErrBadPolicy", bad, err)
		}
	}
	if got := f.svc.AnonymousPolicy(); got != AnonymousSend {
		t.Fatalf("a refused value changed the policy to %q", got)
	}
}

func TestAnUnknownStoredPolicyReadsAsOff(t *testing.T) {
	f := newFixture(t)
	// What a newer binary might have written: this one must not read it as permission.
	if _, err := f.db.Writer.Exec(`INSERT INTO auth_settings (name, value) VALUES ('anonymous', 'everything')`); err != nil {
		t.Fatal(err)
	}
	if got := f.open(t).AnonymousPolicy(); got != AnonymousOff {
		t.Fatalf("policy %q, want %q", got, AnonymousOff)
	}
}

func TestChangesArePublishedOnTheBus(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	b := bus.New()
	svc, err := Open(ctx, Config{DB: f.db, Issuer: testIssuer, Now: f.clock.Now, Bus: b})
	if err != nil {
		t.Fatal(err)
	}
	sub := b.Subscribe(func(e bus.Event) bool { return e.Topic == Topic }, 16)
	defer sub.Close()
	next := func(what string) string {
		t.Helper()
		select {
		case e := <-sub.C:
			return e.Key
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: nothing published", what)
		}
		return ""
	}
	if _, _, err := svc.Principals.Add(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	if k := next("add"); k != "bot" {
		t.Fatalf("add published key %q", k)
	}
	if _, _, err := svc.Principals.Rotate(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	if k := next("rotate"); k != "bot" {
		t.Fatalf("rotate published key %q", k)
	}
	if err := svc.Principals.MarkUsed(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	if k := next("mark used"); k != "bot" {
		t.Fatalf("mark used published key %q", k)
	}
	if err := svc.SetAnonymousPolicy(ctx, AnonymousOff); err != nil {
		t.Fatal(err)
	}
	if k := next("policy"); k != "" {
		t.Fatalf("policy published key %q", k)
	}
	if err := svc.Principals.Remove(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	if k := next("remove"); k != "bot" {
		t.Fatalf("remove published key %q", k)
	}
	// A refused change publishes nothing.
	if _, _, err := svc.Principals.Rotate(ctx, "bot"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rotating a removed principal: %v", err)
	}
	select {
	case e := <-sub.C:
		t.Fatalf("a refused rotation published %+v", e)
	default:
	}
}
