package tasks

import (
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// latest holds the row of each recently written task as its last durable write left it: the stored
// JSON, version and owner. Get answers from it instead of reading SQLite; a2a-go reads the task back
// at the end of every blocking send, right after its last write, and that read was the one SQLite
// query of a send's request path. An entry is recorded only after the write that made it returned
// (committed and on disk), so Get never shows what a crash could lose, and only ever replaced by a
// higher version. The store is the only writer of the tasks table (one Store per database, nothing
// else changes or deletes its rows), so an entry is what the row holds. It is bounded by bytes and
// cleared when full; a missing entry costs a query, never correctness. On PostgreSQL, where other
// replicas write the same rows, it is not used: Get reads the row.
//
// A task with a write in flight (queued and not yet answered) is read from SQLite: once a batch has
// committed, its writes are in the table before each is recorded here, one after the other, and a
// reader woken by the first (a stream, through the bus) must not find an older entry for the task
// of a later one.
type latest struct {
	mu       sync.Mutex
	byTask   map[a2a.TaskID]latestRow
	size     int
	inFlight map[a2a.TaskID]int // writes queued and not yet answered, per task
}

type latestRow struct {
	body    []byte
	version taskstore.TaskVersion
	owner   string
}

const (
	latestBytes    = 4 << 20  // all entries' JSON together
	latestMaxEntry = 64 << 10 // a larger task is read from SQLite
)

func (l *latest) get(id a2a.TaskID) (latestRow, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight[id] > 0 {
		return latestRow{}, false
	}
	r, ok := l.byTask[id]
	return r, ok
}

// writing counts a write of the task from the moment it is queued; written (with created, updated or
// forget) once it is answered.
func (l *latest) writing(id a2a.TaskID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight == nil {
		l.inFlight = make(map[a2a.TaskID]int)
	}
	l.inFlight[id]++
}

func (l *latest) written(id a2a.TaskID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight[id] <= 1 {
		delete(l.inFlight, id)
		return
	}
	l.inFlight[id]--
}

// created records a new task's first durable write.
func (l *latest) created(id a2a.TaskID, body []byte, owner string) {
	l.put(id, latestRow{body: body, version: 1, owner: owner})
}

// updated records a durable update of a task known here (its owner comes from the entry); an
// unknown task stays unknown.
func (l *latest) updated(id a2a.TaskID, body []byte, version taskstore.TaskVersion) {
	l.mu.Lock()
	prev, ok := l.byTask[id]
	l.mu.Unlock()
	if ok {
		l.put(id, latestRow{body: body, version: version, owner: prev.owner})
	}
}

// forget drops the task's entry: after a write that failed, its next Get reads the row.
func (l *latest) forget(id a2a.TaskID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if prev, ok := l.byTask[id]; ok {
		l.size -= len(prev.body)
		delete(l.byTask, id)
	}
}

func (l *latest) put(id a2a.TaskID, r latestRow) {
	l.mu.Lock()
	defer l.mu.Unlock()
	prev, had := l.byTask[id]
	if had && prev.version >= r.version {
		return
	}
	if had {
		l.size -= len(prev.body)
		delete(l.byTask, id)
	}
	if len(r.body) > latestMaxEntry {
		return
	}
	if l.byTask == nil || l.size+len(r.body) > latestBytes {
		l.byTask, l.size = make(map[a2a.TaskID]latestRow), 0
	}
	l.byTask[id] = r
	l.size += len(r.body)
}
