package auth

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestPrincipalIDs(t *testing.T) {
	if p := Agent("ci-bot"); p.ID != "agent://ci-bot" || p.Kind != KindAgent || p.Name != "ci-bot" {
		t.Errorf("Agent(ci-bot) = %+v", p)
	}
	if p := Remote("demo"); p.ID != "remote://demo" || p.Kind != KindRemote || p.Name != "demo" {
		t.Errorf("Remote(demo) = %+v", p)
	}
	for _, p := range []Principal{Owner, Anonymous, Agent("x.y_z-1"), Remote("demo"), Remote("4f1c2a9e-0b7d-4c1e-9a55-2f6b8d0c3e11")} {
		if got, ok := ParseID(p.ID); !ok || got != p {
			t.Errorf("ParseID(%q) = %+v, %v; want %+v", p.ID, got, ok, p)
		}
	}
	for _, id := range []string{"", "agent://", "agent://Bot", "user://someone", "agent://a b", "bot", "remote://", "remote://a b", "remote://a/b"} {
		if p, ok := ParseID(id); ok {
			t.Errorf("ParseID(%q) = %+v, want no principal", id, p)
		}
	}
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"a", "bot", "ci-bot.2", "a_b", "0", strings.Repeat("x", MaxNameLen)} {
		if err := ValidName(ok); err != nil {
			t.Errorf("ValidName(%q) = %v, want ok", ok, err)
		}
	}
	for _, bad := range []string{"", "Bot", "-bot", ".bot", "a b", "a/b", "a:b", "é", strings.Repeat("x", MaxNameLen+1)} {
		if err := ValidName(bad); !errors.Is(err, ErrBadName) {
			t.Errorf("ValidName(%q) = %v, want ErrBadName", bad, err)
		}
	}
}

func TestAddAuthenticateList(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	info, key, err := f.svc.Principals.Add(ctx, "bot")
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != "agent://bot" || !strings.HasPrefix(key, info.KeyPrefix) || len(info.KeyPrefix) >= len(key)/2 {
		t.Errorf("Add = %+v, key of %d chars; want agent://bot and a short prefix of the key", info, len(key))
	}
	if !info.CreatedAt.Equal(f.clock.Now()) {
		t.Errorf("CreatedAt = %v, want %v", info.CreatedAt, f.clock.Now())
	}
	if p, err := f.svc.Principals.Authenticate(ctx, key); err != nil || p != Agent("bot") {
		t.Fatalf("Authenticate(key) = %+v, %v; want agent://bot", p, err)
	}
	_, key2, err := f.svc.Principals.Add(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	if key2 == key {
		t.Fatal("two principals got the same key")
	}
	if _, _, err := f.svc.Principals.Add(ctx, "bot"); !errors.Is(err, ErrExists) {
		t.Errorf("adding bot twice: %v, want ErrExists", err)
	}
	if _, _, err := f.svc.Principals.Add(ctx, "Bot!"); !errors.Is(err, ErrBadName) {
		t.Errorf("adding a bad name: %v, want ErrBadName", err)
	}
	list, err := f.svc.Principals.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != "agent://bot" || list[1].ID != "agent://other" || list[0].KeyPrefix != info.KeyPrefix || !list[0].LastUsedAt.IsZero() {
		t.Errorf("List = %+v, want bot then other, never used", list)
	}
}

// Keys are stored hashed: nothing in the database file (nor its WAL) holds the key.
func TestKeysAreNotStoredInTheClear(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	key := f.add(t, "bot")
	for _, path := range []string{f.db.Path, f.db.Path + "-wal"} {
		b, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		// The part past the displayed prefix must be nowhere, in any encoding the code might use.
		if secret := key[keyPrefixLen:]; bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s contains the API key", path)
		}
	}
	var hash []byte
	if err := f.db.Reader.QueryRowContext(ctx, `SELECT key_hash FROM principals WHERE name = 'bot'`).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if want := hashKey(key); !bytes.Equal(hash, want[:]) {
		t.Errorf("stored hash is not the key's SHA-256")
	}
}

func TestAuthenticateRefusesBadKeys(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	key := f.add(t, "bot")
	flip := []byte(key)
	flip[len(flip)-1] ^= 1 // same prefix, so the row is found, but the hash differs
	for name, bad := range map[string]string{
		"empty":             "",
		"last char flipped": string(flip),
		"truncated":         key[:len(key)-1],
		"extended":          key + "A",
		"prefix only":       key[:keyPrefixLen],
		"another key":       "ahk_" + strings.Repeat("A", 43),
		"no tag":            "xyz_" + key[4:],
		"huge":              strings.Repeat("a", 1<<20),
	} {
		p, err := f.svc.Principals.Authenticate(ctx, bad)
		if err == nil {
			t.Errorf("%s: Authenticate = %+v, want refused", name, p)
			continue
		}
		wantUnauthenticated(t, name, err, "unknown API key", key, bad)
	}
}

func TestRotateKillsTheOldKey(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	old := f.add(t, "bot")
	f.clock.Advance(time.Hour)
	info, key, err := f.svc.Principals.Rotate(ctx, "bot")
	if err != nil {
		t.Fatal(err)
	}
	if key == old || info.ID != "agent://bot" || !info.CreatedAt.Equal(f.clock.Now()) {
		t.Errorf("Rotate = %+v (new key differs: %v)", info, key != old)
	}
	if _, err := f.svc.Principals.Authenticate(ctx, old); !errors.Is(err, ErrUnauthenticated) {
		t.Errorf("old key after rotation: %v, want ErrUnauthenticated", err)
	}
	if p, err := f.svc.Principals.Authenticate(ctx, key); err != nil || p.ID != "agent://bot" {
		t.Errorf("new key: %+v, %v", p, err)
	}
	if _, _, err := f.svc.Principals.Rotate(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("rotating an unknown principal: %v, want ErrNotFound", err)
	}
}

func TestRemoveThenAddAgain(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	old := f.add(t, "bot")
	if err := f.svc.Principals.Remove(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Principals.Authenticate(ctx, old); !errors.Is(err, ErrUnauthenticated) {
		t.Errorf("key of a removed principal: %v, want ErrUnauthenticated", err)
	}
	if list, _ := f.svc.Principals.List(ctx); len(list) != 0 {
		t.Errorf("List after Remove = %+v, want none", list)
	}
	if err := f.svc.Principals.Remove(ctx, "bot"); !errors.Is(err, ErrNotFound) {
		t.Errorf("removing twice: %v, want ErrNotFound", err)
	}
	if _, _, err := f.svc.Principals.Rotate(ctx, "bot"); !errors.Is(err, ErrNotFound) {
		t.Errorf("rotating a removed principal: %v, want ErrNotFound", err)
	}
	key := f.add(t, "bot")
	if p, err := f.svc.Principals.Authenticate(ctx, key); err != nil || p.ID != "agent://bot" {
		t.Errorf("re-added principal's key: %+v, %v", p, err)
	}
	if _, err := f.svc.Principals.Authenticate(ctx, old); !errors.Is(err, ErrUnauthenticated) {
		t.Errorf("the first key came back with the name: %v", err)
	}
}

func TestMarkUsedWritesAtMostOnceAMinute(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.add(t, "bot")
	ps := f.svc.Principals
	lastUsed := func() time.Time {
		t.Helper()
		list, err := ps.List(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("List = %+v, %v", list, err)
		}
		return list[0].LastUsedAt
	}
	first := f.clock.Now()
	if err := ps.MarkUsed(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(); !got.Equal(first) {
		t.Fatalf("LastUsedAt = %v, want %v", got, first)
	}
	f.clock.Advance(30 * time.Second)
	if err := ps.MarkUsed(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(); !got.Equal(first) {
		t.Errorf("a second use within the minute was written: LastUsedAt = %v, want still %v", got, first)
	}
	f.clock.Advance(31 * time.Second)
	if err := ps.MarkUsed(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(); !got.Equal(f.clock.Now()) {
		t.Errorf("a use after the minute was not written: LastUsedAt = %v, want %v", got, f.clock.Now())
	}
}
