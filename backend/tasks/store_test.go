package tasks_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

func open(t testing.TB, path string) (*store.DB, *tasks.Store) {
	t.Helper()
	db, err := store.Open(storetest.Target(t, path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := tasks.Open(t.Context(), db, bus.New(), "test")
	if err != nil {
		t.Fatal(err)
	}
	return db, s
}

func newTask(id string) *a2a.Task {
	return &a2a.Task{ID: a2a.TaskID(id), ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted},
		History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi "+id))}}
}

func TestCreateUpdateGetAndOptimisticConcurrency(t *testing.T) {
	_, s := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := t.Context()
	v, err := s.Create(ctx, newTask("a"))
	if err != nil || v != 1 {
		t.Fatalf("create: %v %v", v, err)
	}
	if _, err := s.Create(ctx, newTask("a")); !errors.Is(err, taskstore.ErrTaskAlreadyExists) {
		t.Fatalf("second create: %v", err)
	}
	task := newTask("a")
	task.Status.State = a2a.TaskStateWorking
	ev := a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, nil)
	if v, err = s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: ev, PrevVersion: 1}); err != nil || v != 2 {
		t.Fatalf("update: %v %v", v, err)
	}
	if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: ev, PrevVersion: 1}); !errors.Is(err, taskstore.ErrConcurrentModification) {
		t.Fatalf("stale update: %v", err)
	}
	if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: newTask("nope"), Event: ev}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("update unknown: %v", err)
	}
	got, err := s.Get(ctx, "a")
	if err != nil || got.Version != 2 || got.Task.Status.State != a2a.TaskStateWorking || got.Task.History[0].Parts[0].Text() != "hi a" {
		t.Fatalf("get: %+v %v", got, err)
	}
	if _, err := s.Get(ctx, "nope"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("get unknown: %v", err)
	}
	log, err := s.Log(ctx, "a", 0)
	if err != nil || len(log) != 2 || log[0].Kind != "task" || log[1].Kind != "status" || log[1].Version != 2 {
		t.Fatalf("log %+v %v", log, err)
	}
}

func TestApplyMarksFailureAndRecoverFailsUnresumedTasks(t *testing.T) {
	_, s := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := t.Context()
	for _, id := range []string{"run", "keep", "done"} {
		if _, err := s.Create(ctx, newTask(id)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Apply(ctx, a2a.NewStatusUpdateEvent(newTask("done"), a2a.TaskStateCompleted, nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(ctx, a2a.NewStatusUpdateEvent(newTask("done"), a2a.TaskStateWorking, nil)); !errors.Is(err, tasks.ErrTaskClosed) {
		t.Fatalf("update of a completed task: %v", err)
	}
	resumed, failed, err := s.Recover(ctx, resumeOnly("keep"))
	if err != nil || resumed != 1 || failed != 1 {
		t.Fatalf("recover: %d %d %v", resumed, failed, err)
	}
	run, _ := s.Get(ctx, "run")
	if run.Task.Status.State != a2a.TaskStateFailed || run.Task.Status.Message == nil {
		t.Fatalf("interrupted task %+v", run.Task.Status)
	}
	keep, _ := s.Get(ctx, "keep")
	if keep.Task.Status.State != a2a.TaskStateSubmitted {
		t.Fatalf("resumed task %+v", keep.Task.Status)
	}
}

type resumeOnly a2a.TaskID

func (r resumeOnly) Resume(_ context.Context, t *a2a.Task) bool { return t.ID == a2a.TaskID(r) }

func TestListPagesNewestFirst(t *testing.T) {
	_, s := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := t.Context()
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		if _, err := s.Create(ctx, newTask(id)); err != nil {
			t.Fatal(err)
		}
	}
	var seen []a2a.TaskID
	token := ""
	for {
		page, err := s.List(ctx, &a2a.ListTasksRequest{PageSize: 2, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		if page.TotalSize != 5 {
			t.Fatalf("total %d", page.TotalSize)
		}
		for _, task := range page.Tasks {
			seen = append(seen, task.ID)
		}
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	if len(seen) != 5 || seen[0] != "5" || seen[4] != "1" {
		t.Fatalf("pages gave %v", seen)
	}
	for _, bad := range []*a2a.ListTasksRequest{{PageSize: 101}, {PageSize: -1}, {PageToken: "garbage!"}} {
		if _, err := s.List(ctx, bad); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Fatalf("List(%+v) = %v", bad, err)
		}
	}
}

func TestSchemaNewerThanBinaryIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, _ := open(t, path)
	future := fstest.MapFS{
		"00001_tasks.sql":          {Data: []byte("-- +goose Up\nSELECT 1;\n")},
		"00099_later.sql":          {Data: []byte("-- +goose Up\nCREATE TABLE later(x INTEGER);\n")},
		"postgres/00001_tasks.sql": {Data: []byte("-- +goose Up\nSELECT 1;\n")},
		"postgres/00099_later.sql": {Data: []byte("-- +goose Up\nCREATE TABLE later(x INTEGER);\n")},
	}
	if err := db.Migrate(t.Context(), "tasks", future); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db2, err := store.Open(storetest.Target(t, path))
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if _, err := tasks.Open(t.Context(), db2, nil, "test"); !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("opening a newer schema: %v", err)
	}
}

func TestPushConfigs(t *testing.T) {
	db, _ := open(t, filepath.Join(t.TempDir(), "t.db"))
	p := tasks.NewPushConfigs(db)
	ctx := t.Context()
	saved, err := p.Save(ctx, "t1", &a2a.PushConfig{URL: "https://example.com/hook", Token: "tok"})
	if err != nil || saved.ID == "" || saved.TaskID != "t1" {
		t.Fatalf("save: %+v %v", saved, err)
	}
	got, err := p.Get(ctx, "t1", saved.ID)
	if err != nil || got.Token != "tok" {
		t.Fatalf("get: %+v %v", got, err)
	}
	for _, bad := range []string{"", "not a url", "ftp://example.com/x", "/relative"} {
		if _, err := p.Save(ctx, "t1", &a2a.PushConfig{URL: bad}); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Fatalf("save %q: %v", bad, err)
		}
	}
	for range tasks.MaxPushConfigsPerTask - 1 {
		if _, err := p.Save(ctx, "t1", &a2a.PushConfig{URL: "https://example.com/more"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Save(ctx, "t1", &a2a.PushConfig{URL: "https://example.com/one-too-many"}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("over the limit: %v", err)
	}
	if err := p.Delete(ctx, "t1", saved.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Get(ctx, "t1", saved.ID); !errors.Is(err, push.ErrPushConfigNotFound) {
		t.Fatalf("get deleted: %v", err)
	}
	if err := p.DeleteAll(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if list, err := p.List(ctx, "t1"); err != nil || len(list) != 0 {
		t.Fatalf("after DeleteAll: %v %v", list, err)
	}
}
