package channels_test

import (
	"path/filepath"
	"testing"

	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// MemberLog reads a channel's joins and leaves from what its audit already records: the members it
// was created with, each add and removal, not a change of role; and only for a caller who may see it.
func TestMemberLog(t *testing.T) {
	s, db := openService(t, storetest.Target(t, filepath.Join(t.TempDir(), "hub.db")))
	t.Cleanup(func() { db.Close() })
	alice, bob, carol := as("alice"), as("bob"), as("carol")
	c, err := s.Create(alice, channels.CreateParams{Name: "c", Members: []string{"agent://bob"}})
	if err != nil {
		t.Fatal(err)
	}
	p := text("hi")
	p.ChannelID = c.ID
	if _, err := s.Publish(alice, p); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() (*channels.Channel, error){
		func() (*channels.Channel, error) { return s.AddMember(alice, c.ID, "agent://dave", "") },
		func() (*channels.Channel, error) { return s.AddMember(alice, c.ID, "agent://dave", "owner") }, // a role, not a join
		func() (*channels.Channel, error) { return s.RemoveMember(alice, c.ID, "agent://bob") },
		func() (*channels.Channel, error) { return s.AddMember(alice, c.ID, "agent://bob", "") },
	} {
		if _, err := step(); err != nil {
			t.Fatal(err)
		}
	}
	log, err := s.MemberLog(alice, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		verb := "removed"
		if e.Joined {
			verb = "added"
		}
		got = append(got, e.Actor+" "+verb+" "+e.Principal)
		if e.At == 0 {
			t.Errorf("an entry without its time: %+v", e)
		}
	}
	want := []string{"agent://alice added agent://bob", "agent://alice added agent://dave", "agent://alice removed agent://bob", "agent://alice added agent://bob"}
	if len(got) != len(want) {
		t.Fatalf("member log:\n got %q\nwant %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("member log:\n got %q\nwant %q", got, want)
		}
	}
	if _, err := s.MemberLog(carol, c.ID); err == nil {
		t.Error("a non-member read a private channel's member log")
	}
	_ = bob
}
