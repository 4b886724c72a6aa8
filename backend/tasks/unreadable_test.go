package tasks_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/tasks"
)

// TestCheckMessageNamesEveryUnstorablePart: the edge check refuses, as invalid params naming the part,
// each shape that a2a-go's gob copy and JSON would turn unreadable, and lets the rest through.
func TestCheckMessageNamesEveryUnstorablePart(t *testing.T) {
	bad := map[string]*a2a.Part{
		"is null":                     nil,
		"has no content":              {},
		"is an empty file":            {Content: a2a.Raw{}},
		"is a file with an empty URL": {Content: a2a.URL("")},
		"holds null data":             {Content: a2a.Data{Value: map[string]any(nil)}},
		"holds an empty data list":    {Content: a2a.Data{Value: []string{}}},
	}
	for want, p := range bad {
		err := tasks.CheckMessage(a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ok"), p))
		if !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), "message.parts[1] "+want) {
			t.Errorf("%s: %v", want, err)
		}
	}
	good := []*a2a.Part{a2a.NewTextPart(""), a2a.NewRawPart([]byte{0}), a2a.NewFileURLPart("https://example.com/f", ""),
		a2a.NewDataPart(map[string]any{}), a2a.NewDataPart([]any{nil}), a2a.NewDataPart(0), a2a.NewDataPart("")}
	if err := tasks.CheckMessage(a2a.NewMessage(a2a.MessageRoleUser, good...)); err != nil {
		t.Fatalf("storable parts refused: %v", err)
	}
}

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

// corrupt writes garbage over a stored task's JSON, or one of its events', straight into the file:
// what an older build, a bug or a damaged disk could leave.
func corrupt(t *testing.T, db *store.DB, id string, seq int64) {
	t.Helper()
	var err error
	if seq == 0 {
		_, err = db.Writer.Exec(`UPDATE tasks SET task_json = ? WHERE id = ?`, []byte(`{"id":"`+id+`","history":[{"parts":[{"raw":null}]}]}`), id)
	} else {
		_, err = db.Writer.Exec(`UPDATE task_events SET event_json = ? WHERE task_id = ? AND seq = ?`, []byte(`not json`), id, seq)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestUnreadableRowsAreSkippedReportedAndRecovered: one bad task row or event row no longer takes
// down a list, a stream or recovery. Lists skip it (List) or mark it (Page, Row), Get names it,
// streams skip the bad event, and recovery fails an interrupted unreadable task and goes on.
func TestUnreadableRowsAreSkippedReportedAndRecovered(t *testing.T) {
	db, s := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := t.Context()
	for _, id := range []string{"1", "bad-done", "2", "bad-working", "3"} {
		if _, err := s.Create(ctx, newTask(id)); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"1", "bad-done"} {
		if _, err := s.Apply(ctx, a2a.NewStatusUpdateEvent(newTask(id), a2a.TaskStateCompleted, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Apply(ctx, a2a.NewStatusUpdateEvent(newTask("bad-working"), a2a.TaskStateWorking, nil)); err != nil {
		t.Fatal(err)
	}
	corrupt(t, db, "bad-done", 0)
	corrupt(t, db, "bad-working", 0)
	corrupt(t, db, "1", 1) // task 1's first event: the task as created
	// The hub that finds such rows is a later run: a store opened on the file, not the one that
	// wrote them (which answers Get from the writes it made), and that one is gone (on PostgreSQL its
	// unfinished tasks are another replica's until then).
	s.Close()
	s, err := tasks.Open(ctx, db, bus.New(), "test")
	if err != nil {
		t.Fatal(err)
	}

	// List (the protocol's ListTasks) leaves them out, page by page, and still counts them.
	var seen []a2a.TaskID
	token := ""
	for {
		page, err := s.List(ctx, &a2a.ListTasksRequest{PageSize: 1, PageToken: token})
		if err != nil {
			t.Fatalf("List: %v", err)
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
	slices.Sort(seen)
	if !slices.Equal(seen, []a2a.TaskID{"1", "2", "3"}) {
		t.Fatalf("List pages gave %v", seen)
	}

	// Page (the UI's and the inbox's lists) shows them, marked, with what the columns know.
	rows, err := s.Page(ctx, tasks.PageQuery{Limit: 10})
	if err != nil || len(rows) != 5 {
		t.Fatalf("Page: %d rows, %v", len(rows), err)
	}
	marked := map[a2a.TaskID]a2a.TaskState{}
	for _, r := range rows {
		if r.Unreadable != "" {
			if r.Task.ContextID != "ctx" {
				t.Errorf("unreadable row %s lost its context: %+v", r.Task.ID, r.Task)
			}
			marked[r.Task.ID] = r.Task.Status.State
		}
	}
	if len(marked) != 2 || marked["bad-done"] != a2a.TaskStateCompleted || marked["bad-working"] != a2a.TaskStateWorking {
		t.Fatalf("unreadable rows marked: %v", marked)
	}
	if r, err := s.Row(ctx, "bad-done"); err != nil || r.Unreadable == "" {
		t.Fatalf("Row(bad-done) = %+v, %v", r, err)
	}
	if _, err := s.Get(ctx, "bad-done"); !errors.Is(err, tasks.ErrUnreadable) || !errors.Is(err, a2a.ErrInternalError) {
		t.Fatalf("Get(bad-done) = %v, want ErrUnreadable", err)
	}

	// Task 1's log: the bad event is returned marked; a stream skips it and still ends.
	log, err := s.Log(ctx, "1", 0)
	if err != nil || len(log) < 2 || log[0].Unreadable == "" || log[0].Event != nil {
		t.Fatalf("Log(1) = %+v, %v", log, err)
	}
	var kinds []string
	for l, err := range s.Stream(ctx, "1") {
		if err != nil {
			t.Fatalf("Stream(1): %v", err)
		}
		kinds = append(kinds, l.Kind)
	}
	if !slices.Equal(kinds, []string{"status"}) {
		t.Fatalf("Stream(1) gave %v, want the completed status only", kinds)
	}

	// Recovery fails the interrupted unreadable task, with a reason, and goes on.
	resumed, failed, err := s.Recover(ctx, nil)
	if err != nil || resumed != 0 || failed != 3 { // bad-working, 2 and 3
		t.Fatalf("Recover: resumed %d failed %d, %v", resumed, failed, err)
	}
	got, err := s.Get(ctx, "bad-working")
	if err != nil || got.Task.Status.State != a2a.TaskStateFailed || got.Task.ContextID != "ctx" ||
		!strings.Contains(got.Task.Status.Message.Parts[0].Text(), "could not be read") {
		t.Fatalf("bad-working after recovery: %+v, %v", got, err)
	}
	if tasks.Title(got.Task) != "hi bad-working" {
		t.Errorf("the recovered task lost its request (kept from its first logged event): %q", tasks.Title(got.Task))
	}
	if d, _ := s.DialectOf(ctx, "bad-working"); d != tasks.DialectV1 {
		t.Fatalf("dialect after recovery: %q", d)
	}
	var final *tasks.Logged
	for l, err := range s.Stream(ctx, "bad-working") {
		if err != nil {
			t.Fatal(err)
		}
		final = l
	}
	if final == nil || !final.Final || final.Kind != "status" {
		t.Fatalf("the recovered task's stream ends on %+v", final)
	}
	// A terminal unreadable task is left as it is, for a person to look at.
	if r, _ := s.Row(ctx, "bad-done"); r.Unreadable == "" {
		t.Fatal("recovery rewrote a finished task")
	}
}

// TestEventsNotInTheTaskAreStillChecked: an update's status or artifact event needs no decode of its
// own when its status or artifact is the task's (checked with the task). One that is not (a status
// other than the task's, an appended chunk) is decoded as before: an
// unreadable one is refused with invalid params and nothing is written.
func TestEventsNotInTheTaskAreStillChecked(t *testing.T) {
	_, s := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := t.Context()
	task := newTask("t")
	if _, err := s.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	badMsg := a2a.NewMessage(a2a.MessageRoleAgent, &a2a.Part{Content: a2a.Raw(nil)})
	badArt := &a2a.Artifact{ID: "a", Parts: []*a2a.Part{{Content: a2a.Raw(nil)}}}
	task.Status.State = a2a.TaskStateWorking
	task.Artifacts = []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}}
	badEvents := map[string]a2a.Event{
		"a status other than the task's": &a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: badMsg}},
		"an appended chunk":              &a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Append: true, Artifact: badArt},
	}
	for name, ev := range badEvents {
		if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: ev, PrevVersion: 1}); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Errorf("%s: %v, want invalid params", name, err)
		}
	}
	// The task's own status and artifact, as a2a-go sends them, are stored and read back.
	for i, ev := range []a2a.Event{
		&a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: task.Status},
		&a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Artifact: task.Artifacts[0]},
	} {
		if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: ev, PrevVersion: taskstore.TaskVersion(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	log, err := s.Log(ctx, task.ID, 0)
	if err != nil || len(log) != 3 {
		t.Fatalf("log: %d entries, %v; want the task and two events", len(log), err)
	}
	for _, l := range log {
		if l.Event == nil {
			t.Fatalf("entry %d does not read back: %s", l.Seq, l.Unreadable)
		}
	}
}
