package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// A task's stored JSON is written on every event, and the store checks that it reads back as a task
// (readsBack) so no row can be left that readers choke on. Decoding the whole task again on every
// event was a tenth of the hub's CPU on a streamed task, although an event changes little of it: the
// history messages and the artifacts other than the one being streamed are the bytes the previous
// write already checked.
//
// encodeTask therefore writes the task's JSON a field at a time, exactly as json.Marshal would (the
// fields of a2a.Task in declaration order, omitempty as tagged; TestEncodeTaskIsJSONMarshal holds it to
// that), and decodes only the pieces whose bytes differ from those its task's last write checked.
// The same goes for the status, which an artifact event leaves as it was. The guarantee is the same:
// a2a.Task has no UnmarshalJSON of its own, so encoding/json decodes it field by field and each array
// element on its own; the whole decodes if every piece does.

// checkedPieces is the JSON of a task's history messages and artifacts that a write checked to read
// back, element by element, and of its status.
type checkedPieces struct {
	history, artifacts [][]byte
	status             []byte
	// The same artifacts in finer pieces (encodeArtifact): each one's JSON without its parts, and
	// its parts'. An artifact streamed in appended chunks changes on every chunk, but only by the
	// parts the chunk added.
	artifactHeads [][]byte
	artifactParts [][][]byte
}

// pieceCache holds the pieces of the last write of recently written tasks. It is bounded (cleared
// when full) and only ever says "these bytes were checked": a stale or missing entry costs a decode,
// never correctness.
type pieceCache struct {
	mu     sync.Mutex
	byTask map[a2a.TaskID]*checkedPieces
}

const pieceCacheTasks = 4096

func (c *pieceCache) get(id a2a.TaskID) *checkedPieces {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byTask[id]
}

// put remembers p for the task's next write; a task whose stream ended is forgotten (a later turn,
// after input-required, only pays a whole decode again).
func (c *pieceCache) put(id a2a.TaskID, p *checkedPieces, ended bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ended {
		delete(c.byTask, id)
		return
	}
	if c.byTask == nil || len(c.byTask) >= pieceCacheTasks {
		c.byTask = make(map[a2a.TaskID]*checkedPieces)
	}
	c.byTask[id] = p
}

// encodeTask is the task's stored JSON (the bytes of json.Marshal(task)), refused if it would not
// read back. prev, if not nil, holds pieces already checked; the pieces of this task are returned.
func encodeTask(task *a2a.Task, prev *checkedPieces) ([]byte, *checkedPieces, error) {
	if prev == nil {
		prev = &checkedPieces{}
	}
	out := &checkedPieces{}
	var buf bytes.Buffer
	field := func(name string, first bool) {
		if !first {
			buf.WriteByte(',')
		}
		buf.WriteByte('"')
		buf.WriteString(name)
		buf.WriteString(`":`)
	}
	// value appends v's JSON; check, when not nil, is what it must decode into.
	value := func(v any, check any) ([]byte, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if check != nil {
			if err := readsBack(b, check); err != nil {
				return nil, err
			}
		}
		buf.Write(b)
		return b, nil
	}
	// list appends a JSON array of elements, decoding each into a fresh value from fresh() unless
	// its bytes are those checked at the same place last time.
	list := func(n int, elem func(i int) any, fresh func() any, checked [][]byte) ([][]byte, error) {
		pieces := make([][]byte, n)
		buf.WriteByte('[')
		for i := range n {
			if i > 0 {
				buf.WriteByte(',')
			}
			b, err := json.Marshal(elem(i))
			if err != nil {
				return nil, err
			}
			if i >= len(checked) || !bytes.Equal(b, checked[i]) {
				if err := readsBack(b, fresh()); err != nil {
					return nil, err
				}
			}
			buf.Write(b)
			pieces[i] = b
		}
		buf.WriteByte(']')
		return pieces, nil
	}
	err := func() error {
		buf.WriteByte('{')
		field("id", true)
		if _, err := value(task.ID, nil); err != nil {
			return err
		}
		if len(task.Artifacts) > 0 {
			field("artifacts", false)
			n := len(task.Artifacts)
			out.artifacts, out.artifactHeads, out.artifactParts = make([][]byte, n), make([][]byte, n), make([][][]byte, n)
			buf.WriteByte('[')
			for i, a := range task.Artifacts {
				if i > 0 {
					buf.WriteByte(',')
				}
				var err error
				if out.artifacts[i], out.artifactHeads[i], out.artifactParts[i], err = encodeArtifact(a, prev, i); err != nil {
					return err
				}
				buf.Write(out.artifacts[i])
			}
			buf.WriteByte(']')
		}
		field("contextId", false)
		if _, err := value(task.ContextID, nil); err != nil {
			return err
		}
		if len(task.History) > 0 {
			field("history", false)
			var err error
			out.history, err = list(len(task.History), func(i int) any { return task.History[i] },
				func() any { return &a2a.Message{} }, prev.history)
			if err != nil {
				return err
			}
		}
		if len(task.Metadata) > 0 {
			field("metadata", false)
			if _, err := value(task.Metadata, &map[string]any{}); err != nil {
				return err
			}
		}
		field("status", false)
		b, err := json.Marshal(task.Status)
		if err != nil {
			return err
		}
		// An artifact event leaves the status as it was: checked then.
		if !bytes.Equal(b, prev.status) {
			if err := readsBack(b, &a2a.TaskStatus{}); err != nil {
				return err
			}
		}
		buf.Write(b)
		out.status = b
		buf.WriteByte('}')
		return nil
	}()
	if err != nil {
		return nil, nil, fmt.Errorf("task %s: %w", task.ID, err)
	}
	return buf.Bytes(), out, nil
}

// readsBackAs reports whether a status or artifact event is sure to read back because the one part
// of its JSON that could fail to decode is bytes the task's encoding checked: a status event's status
// is the task's (a2a-go sets the task's status from it), an artifact event that replaces or adds a
// whole artifact carries the task's artifact. Neither event type nor Artifact or TaskStatus has an
// UnmarshalJSON of its own, so encoding/json decodes the event field by field: the ids are strings
// (any string json.Marshal wrote reads back), the status or artifact reads back as checked, and an
// event with metadata is not covered (its metadata is decoded as usual). Decoding an event a second
// time was a third of a write's encoding CPU.
//
// status is the task's status as encodeTask just wrote it into task.status: an event holding the
// same value (the same state, message and timestamp pointers, as a2a-go hands them over) has the
// same JSON, so it is not marshalled again to compare.
func readsBackAs(ev a2a.Event, status *a2a.TaskStatus, task *checkedPieces) bool {
	if task == nil {
		return false
	}
	switch v := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		if len(v.Metadata) > 0 || task.status == nil {
			return false
		}
		if status != nil && v.Status == *status {
			return true
		}
		b, err := json.Marshal(v.Status)
		return err == nil && bytes.Equal(b, task.status)
	case *a2a.TaskArtifactUpdateEvent:
		if len(v.Metadata) > 0 || v.Artifact == nil {
			return false
		}
		b, err := json.Marshal(v.Artifact)
		if err != nil {
			return false
		}
		for _, a := range task.artifacts {
			if bytes.Equal(a, b) {
				return true
			}
		}
		return chunkReadsBack(v.Artifact, task)
	}
	return false
}

// chunkReadsBack reports whether an appended chunk reads back because each of its parts is, byte for
// byte, a part the task's encoding checked (a part decodes the same wherever it stands: see
// encodeArtifact); the chunk's own head (id, name, metadata) is decoded.
func chunkReadsBack(chunk *a2a.Artifact, task *checkedPieces) bool {
	if chunk.Parts == nil {
		return false
	}
	for _, p := range chunk.Parts {
		pb, err := json.Marshal(p)
		if err != nil || p == nil || !checkedPart(task, pb) {
			return false
		}
	}
	h := *chunk
	h.Parts = nil
	head, err := json.Marshal(&h)
	return err == nil && readsBack(head, &a2a.Artifact{}) == nil
}

// checkedPart reports whether b is the JSON of a part the task's encoding checked; it looks at the
// last parts first, where a chunk just appended is.
func checkedPart(task *checkedPieces, b []byte) bool {
	for _, parts := range slices.Backward(task.artifactParts) {
		for _, c := range slices.Backward(parts) {
			if bytes.Equal(c, b) {
				return true
			}
		}
	}
	return false
}

// encodeArtifact is the JSON of the task's artifact at index i (the bytes of json.Marshal(a)),
// refused if it would not read back, with its pieces: the artifact without its parts (head) and each
// part. Artifact has no UnmarshalJSON of its own and its fields other than Parts are strings, a
// string list and a JSON object, while ContentParts decodes each part on its own (into a []*Part;
// a null element is a nil part, decoded without Part's UnmarshalJSON): so the artifact reads back if
// its head and each of its parts do, and only the head or parts whose bytes differ from those prev
// checked at the same place are decoded. An appended chunk costs the decode of its own parts, not of
// the whole artifact again.
func encodeArtifact(a *a2a.Artifact, prev *checkedPieces, i int) (whole, head []byte, parts [][]byte, err error) {
	var prevWhole, prevHead []byte
	var prevParts [][]byte
	if i < len(prev.artifacts) {
		prevWhole = prev.artifacts[i]
	}
	if i < len(prev.artifactHeads) {
		prevHead, prevParts = prev.artifactHeads[i], prev.artifactParts[i]
	}
	if a == nil || a.Parts == nil {
		// No parts to split off: the artifact is checked whole, as before.
		if whole, err = json.Marshal(a); err != nil {
			return nil, nil, nil, err
		}
		if !bytes.Equal(whole, prevWhole) {
			if err := readsBack(whole, &a2a.Artifact{}); err != nil {
				return nil, nil, nil, err
			}
		}
		return whole, nil, nil, nil
	}
	h := *a
	h.Parts = nil
	if head, err = json.Marshal(&h); err != nil {
		return nil, nil, nil, err
	}
	const nullParts = `"parts":null}`
	if !bytes.HasSuffix(head, []byte(nullParts)) {
		return nil, nil, nil, fmt.Errorf("artifact %s: its JSON does not end with its parts", a.ID)
	}
	if !bytes.Equal(head, prevHead) {
		if err := readsBack(head, &a2a.Artifact{}); err != nil {
			return nil, nil, nil, err
		}
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-len("null}")])
	b.WriteByte('[')
	parts = make([][]byte, len(a.Parts))
	for j, p := range a.Parts {
		if j > 0 {
			b.WriteByte(',')
		}
		pb, err := json.Marshal(p)
		if err != nil {
			return nil, nil, nil, err
		}
		if (j >= len(prevParts) || !bytes.Equal(pb, prevParts[j])) && p != nil {
			if err := readsBack(pb, &a2a.Part{}); err != nil {
				return nil, nil, nil, err
			}
		}
		b.Write(pb)
		parts[j] = pb
	}
	b.WriteString("]}")
	return b.Bytes(), head, parts, nil
}
