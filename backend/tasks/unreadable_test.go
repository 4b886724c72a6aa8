package tasks_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// TestStoreRefusesWhatWouldNotReadBack: the store's last line of defence. A part a2a-go's JSON cannot
// read back ({"raw":null} from an empty file after a2a-go's gob copy, a part with no content) is
// refused on Create and on Update with invalid params, and the table stays readable.
func TestStoreRefusesWhatWouldNotReadBack(t *testing.T) {
	_, s := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := t.Context()
	unreadable := []*a2a.Part{{Content: a2a.Raw(nil)}, {}, {Content: a2a.URL("")}, {Content: a2a.Data{}}}
	for i, p := range unreadable {
		task := newTask("bad")
		task.History[0].Parts = append(task.History[0].Parts, p)
		if _, err := s.Create(ctx, task); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Errorf("create with part %d (%#v): %v, want invalid params", i, p, err)
		}
	}
	if _, err := s.Create(ctx, newTask("good")); err != nil {
		t.Fatal(err)
	}
	task := newTask("good")
	task.Artifacts = []*a2a.Artifact{{ID: "a", Parts: []*a2a.Part{{Content: a2a.Raw(nil)}}}}
	ev := &a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Artifact: task.Artifacts[0]}
	if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: ev, PrevVersion: 1}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("update with an empty-file artifact: %v, want invalid params", err)
	}
	list, err := s.List(ctx, nil)
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != "good" {
		t.Fatalf("list after refusals: %+v, %v", list, err)
	}
	if got, err := s.Get(ctx, "good"); err != nil || got.Version != 1 {
		t.Fatalf("get: %+v %v", got, err)
	}
}
