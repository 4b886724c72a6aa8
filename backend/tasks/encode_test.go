package tasks

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestEncodeTaskIsJSONMarshal: the task JSON written a field at a time is byte for byte what
// json.Marshal writes, with and without the pieces of a previous write, so rows read the same as
// before and every reader (ours, a2a-go's) sees no difference. If a2a-go's Task gains or renames a
// field, this fails instead of the store silently dropping it.
func TestEncodeTaskIsJSONMarshal(t *testing.T) {
	var fields []string
	tt := reflect.TypeFor[a2a.Task]()
	for i := range tt.NumField() {
		fields = append(fields, tt.Field(i).Name+" "+tt.Field(i).Tag.Get("json"))
	}
	want := []string{"ID id", "Artifacts artifacts,omitempty", "ContextID contextId", "History history,omitempty",
		"Metadata metadata,omitempty", "Status status"}
	if !slices.Equal(fields, want) {
		t.Fatalf("a2a.Task fields are %q; encodeTask writes %q: update it", fields, want)
	}
	if _, ok := any(&a2a.Task{}).(json.Unmarshaler); ok {
		t.Fatal("a2a.Task decodes itself now: checking it piece by piece is no longer the same check")
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("<b>&é\u2028</b>"), a2a.NewDataPart(map[string]any{"k": []any{1.5, "x"}}))
	tasks := []*a2a.Task{
		{ID: "bare", ContextID: "c"},
		{ID: "empty lists", ContextID: "c", Artifacts: []*a2a.Artifact{}, History: []*a2a.Message{}, Metadata: map[string]any{}},
		{ID: "full <&>", ContextID: "c\"q", History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi")), msg},
			Artifacts: []*a2a.Artifact{{ID: "a", Name: "n", Parts: a2a.ContentParts{a2a.NewTextPart("x"), a2a.NewRawPart([]byte("bytes")), a2a.NewFileURLPart("https://x/f", "text/plain")}}, nil},
			Metadata:  map[string]any{"z": 1, "a": map[string]any{"<": true}},
			Status:    a2a.TaskStatus{State: a2a.TaskStateWorking, Message: msg, Timestamp: &now}},
	}
	for _, task := range tasks {
		want, err := json.Marshal(task)
		if err != nil {
			t.Fatal(err)
		}
		got, pieces, err := encodeTask(task, nil)
		if err != nil || string(got) != string(want) {
			t.Fatalf("%s:\n got %s, %v\nwant %s", task.ID, got, err, want)
		}
		// Again with what the first write checked: the same bytes.
		if again, _, err := encodeTask(task, pieces); err != nil || string(again) != string(want) {
			t.Fatalf("%s with checked pieces:\n got %s, %v\nwant %s", task.ID, again, err, want)
		}
	}
}

// TestEncodeTaskChecksWhatChanged: a piece checked by a previous write is trusted only while its
// bytes are the same; an artifact that changed at the same place, or a message added, is decoded and
// refused if it would not read back.
func TestEncodeTaskChecksWhatChanged(t *testing.T) {
	task := &a2a.Task{ID: "t", ContextID: "c", History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))},
		Artifacts: []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}}}
	_, pieces, err := encodeTask(task, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := &a2a.Part{Content: a2a.Raw(nil)} // written as {"raw":null}, which does not decode
	changed := *task
	changed.Artifacts = []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("x"), bad}}}
	if _, _, err := encodeTask(&changed, pieces); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("artifact changed in place to an unreadable one: %v, want invalid params", err)
	}
	added := *task
	added.History = append(slices.Clone(task.History), &a2a.Message{ID: "m", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{bad}})
	if _, _, err := encodeTask(&added, pieces); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("unreadable message added: %v, want invalid params", err)
	}
	status := *task
	status.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Message: &a2a.Message{ID: "s", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{bad}}}
	if _, _, err := encodeTask(&status, pieces); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("unreadable status message: %v, want invalid params", err)
	}
	// Nor are pieces trusted by what they hold, only by their bytes at the same place: a readable
	// artifact checked at index 0 says nothing of an unreadable one moved there.
	moved := *task
	moved.Artifacts = []*a2a.Artifact{{ID: "b", Parts: a2a.ContentParts{bad}}, task.Artifacts[0]}
	if _, _, err := encodeTask(&moved, pieces); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("unreadable artifact put before a checked one: %v, want invalid params", err)
	}
}

// BenchmarkEncodeTask: the stored JSON of the demo echo's task at its last artifact chunk (two
// history messages, one artifact of four parts), checked whole (json.Marshal, then decoding it all)
// against encodeTask with the pieces of the task's previous write.
//
//	go test ./backend/tasks -run '^$' -bench EncodeTask -benchmem
func BenchmarkEncodeTask(b *testing.B) {
	text := func(s string) *a2a.Part { return a2a.NewTextPart(s) }
	task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: a2a.NewContextID(),
		History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, text("benchmark echo text")), a2a.NewMessage(a2a.MessageRoleAgent, text("Echoing."))},
		Status:  a2a.TaskStatus{State: a2a.TaskStateWorking}}
	art := &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "echo", Parts: a2a.ContentParts{text("benchmark "), text("echo "), text("text")}}
	task.Artifacts = []*a2a.Artifact{art}
	_, prev, err := encodeTask(task, nil)
	if err != nil {
		b.Fatal(err)
	}
	art.Parts = append(art.Parts, text(""))
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			body, err := json.Marshal(task)
			if err != nil {
				b.Fatal(err)
			}
			if err := readsBack(body, &a2a.Task{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pieces", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := encodeTask(task, prev); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestEncodeArtifactChecksPartsThatChanged: an artifact is checked a part at a time, so a chunk
// appended to a streamed artifact costs the decode of the chunk's parts, not of every part again.
// Parts are trusted only by their bytes at the same place; any other part is decoded.
func TestEncodeArtifactChecksPartsThatChanged(t *testing.T) {
	at := reflect.TypeFor[a2a.Artifact]()
	if last := at.Field(at.NumField() - 1); last.Name != "Parts" || last.Tag.Get("json") != "parts" {
		t.Fatalf("a2a.Artifact's last field is %s %q; encodeArtifact splits its JSON before \"parts\": update it", last.Name, last.Tag.Get("json"))
	}
	if _, ok := any(&a2a.Artifact{}).(json.Unmarshaler); ok {
		t.Fatal("a2a.Artifact decodes itself now: checking it a part at a time is no longer the same check")
	}
	bad := &a2a.Part{Content: a2a.Raw(nil)} // written as {"raw":null}, which does not decode
	x, y := a2a.NewTextPart("x"), a2a.NewTextPart("y")
	art := func(parts ...*a2a.Part) *a2a.Task {
		return &a2a.Task{ID: "t", ContextID: "c", Artifacts: []*a2a.Artifact{{ID: "a", Name: "n", Parts: a2a.ContentParts(parts)}}}
	}
	_, pieces, err := encodeTask(art(x), nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, task := range map[string]*a2a.Task{
		"an unreadable part appended":           art(x, bad),
		"a part replaced by an unreadable one":  art(bad),
		"a checked part moved behind a bad one": art(bad, x),
	} {
		if _, _, err := encodeTask(task, pieces); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Errorf("%s: %v, want invalid params", name, err)
		}
	}
	for name, task := range map[string]*a2a.Task{"readable parts appended": art(x, y, y), "a nil part (a null element reads back)": art(x, nil)} {
		want, _ := json.Marshal(task)
		if got, _, err := encodeTask(task, pieces); err != nil || string(got) != string(want) {
			t.Errorf("%s: %s, %v; want %s", name, got, err, want)
		}
	}
	// What a previous write checked is not decoded again: pieces that say a part's bytes were checked
	// at its place are believed (here, falsely, for the unreadable part), and only the new part is.
	_, trusted, err := encodeTask(art(x), nil)
	if err != nil {
		t.Fatal(err)
	}
	trusted.artifactParts[0][0], _ = json.Marshal(bad)
	if _, _, err := encodeTask(art(bad, y), trusted); err != nil {
		t.Fatalf("a part checked by the previous write was decoded again: %v", err)
	}
}
