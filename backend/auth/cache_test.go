package auth

import (
	"context"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/store"
)

// TestAnotherProcessChangesAreSeenAtOnce: the hub remembers what its principals table answered, and
// `agenthub principals` changes that table from another process (its own connections to the same
// file). A key removed or rotated there, a token of that key, and a name added again with a new key
// must all be answered from the table at the hub's very next request.
func TestAnotherProcessChangesAreSeenAtOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	hub := f.svc.Principals

	// The other process: a second handle on the same file, as the CLI opens it.
	other, err := store.Open(f.db.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	cli, err := OpenPrincipals(ctx, other)
	if err != nil {
		t.Fatal(err)
	}

	_, key, err := cli.Add(ctx, "bot")
	if err != nil {
		t.Fatal(err)
	}
	token := f.issue(t, "bot", time.Hour)
	for range 3 { // remembered by now
		if p, err := hub.Authenticate(ctx, key); err != nil || p.Name != "bot" {
			t.Fatalf("the key added by the other process: %+v, %v", p, err)
		}
		if p, err := f.svc.Verify(ctx, token); err != nil || p.Name != "bot" {
			t.Fatalf("a token of that key: %+v, %v", p, err)
		}
	}

	_, rotated, err := cli.Rotate(ctx, "bot")
	if err != nil {
		t.Fatal(err)
	}
	_, err = hub.Authenticate(ctx, key)
	wantUnauthenticated(t, "the key rotated away by the other process", err, "unknown API key", key)
	_, err = f.svc.Verify(ctx, token)
	wantUnauthenticated(t, "a token of the rotated key", err, "token revoked")
	if p, err := hub.Authenticate(ctx, rotated); err != nil || p.Name != "bot" {
		t.Fatalf("the new key: %+v, %v", p, err)
	}
	token = f.issue(t, "bot", time.Hour)
	if _, err := f.svc.Verify(ctx, token); err != nil {
		t.Fatalf("a token of the new key: %v", err)
	}

	if err := cli.Remove(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	_, err = hub.Authenticate(ctx, rotated)
	wantUnauthenticated(t, "the key of a principal the other process removed", err, "unknown API key", rotated)
	_, err = f.svc.Verify(ctx, token)
	wantUnauthenticated(t, "a token of the removed principal", err, "token revoked")

	// Added again there: the new key works, the old ones stay dead.
	_, again, err := cli.Add(ctx, "bot")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := hub.Authenticate(ctx, again); err != nil || p.Name != "bot" {
		t.Fatalf("the key of the principal added again: %+v, %v", p, err)
	}
	for _, old := range []string{key, rotated} {
		_, err = hub.Authenticate(ctx, old)
		wantUnauthenticated(t, "an old key after the name was added again", err, "unknown API key", old)
	}

	// Changed by hand (any writer of the file, not only this package): the triggers still count it.
	if _, err := other.Writer.ExecContext(ctx, `UPDATE principals SET revoked_at = 1 WHERE name = 'bot'`); err != nil {
		t.Fatal(err)
	}
	_, err = hub.Authenticate(ctx, again)
	wantUnauthenticated(t, "a key revoked by a plain UPDATE", err, "unknown API key", again)
}

// TestRememberedKeysSkipTheLookup: a known key is answered from memory, after one read of the
// counter; that the table is not read again is what makes a request cheaper.
func TestRememberedKeysSkipTheLookup(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	key := f.add(t, "bot")
	if _, err := f.svc.Principals.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	// Were the table read again, this row (its hash no longer the key's) would refuse the key;
	// written without the columns the triggers watch, it leaves the counter where it was.
	drop := `DROP TRIGGER principals_epoch_update`
	if f.db.Postgres() {
		drop += ` ON principals`
	}
	if _, err := f.db.Writer.ExecContext(ctx, drop); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.Writer.ExecContext(ctx, `UPDATE principals SET key_hash = ? WHERE name = 'bot'`, []byte{0}); err != nil {
		t.Fatal(err)
	}
	if p, err := f.svc.Principals.Authenticate(ctx, key); err != nil || p.Name != "bot" {
		t.Fatalf("a remembered key: %+v, %v; want it answered from memory", p, err)
	}
}
