package knowledge

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/query"
	"github.com/cayleygraph/cayley/query/gizmo"
	"github.com/cayleygraph/quad"
)

// Gizmo scripts are JavaScript (goja), which has no memory limit of its own: a loop doubling a
// string took a fresh hub from 32 MB to 718 MB, four at once to 1.9 GB. A script is bounded by:
//   - GizmoMaxConcurrent scripts in flight per hub (a slot is held until the script's goroutine has
//     really stopped, not only until it was answered), so the bounds below multiply by a known
//     number; a script waits GizmoQueueWait for a slot, then is refused;
//   - GizmoMaxMemory of heap growth while it runs: a watchdog samples the heap (runtime/metrics,
//     no stop-the-world) and, past the bound, collects to tell garbage from what is still held; if
//     what is held still grew past the bound, the script is interrupted (goja's Interrupt, between
//     two instructions) and the memory is handed back to the system once it has stopped. The heap
//     is the process's, so a script running beside a large update may be stopped for memory it did
//     not take: a refused query, never a lost write;
//   - GizmoTimeout from the start of the script (not only of reading its results, as before: the
//     time limit was answered after 13 s on a loaded hub).
const GizmoMaxConcurrent = 2

// Variables for tests.
var (
	GizmoMaxMemory  uint64 = 32 << 20
	GizmoQueueWait         = time.Second
	gizmoWatchEvery        = 2 * time.Millisecond
)

var (
	errGizmoTime   = errors.New("gizmo: out of time")
	errGizmoMemory = errors.New("gizmo: out of memory")
)

// gizmoSlots are the hub's scripts in flight.
type gizmoSlots chan struct{}

func newGizmoSlots() gizmoSlots { return make(gizmoSlots, GizmoMaxConcurrent) }

// runGizmo runs script on qs within the limits above.
func (slots gizmoSlots) runGizmo(ctx context.Context, qs graph.QuadStore, script string) ([]any, error) {
	wait := time.NewTimer(GizmoQueueWait)
	defer wait.Stop()
	select {
	case slots <- struct{}{}:
	case <-wait.C:
		return nil, errorf(CodeQueryError, fmt.Sprintf("gizmo: %d scripts are already running, the most this hub runs at once; try again shortly", GizmoMaxConcurrent),
			map[string]any{"limit": GizmoMaxConcurrent})
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release := func() { <-slots }
	it, err := gizmo.NewSession(qs).Execute(ctx, script, query.Options{Collation: query.Raw, Limit: GizmoMaxResults})
	if err != nil {
		release()
		return nil, gizmoError(err)
	}
	ctx, cancelTime := context.WithTimeoutCause(ctx, GizmoTimeout, errGizmoTime)
	ctx, cancel := context.WithCancelCause(ctx)
	stopWatch := watchHeap(ctx, func() { cancel(errGizmoMemory) })
	out := []any{}
	for it.Next(ctx) {
		out = append(out, gizmoJSON(qs, it.Result()))
	}
	stopWatch()
	cause := context.Cause(ctx)
	cancel(nil)
	cancelTime()
	if cause == nil { // ran to its end
		defer release()
		defer it.Close()
		if err := it.Err(); err != nil {
			return nil, gizmoError(err)
		}
		return out, nil
	}
	// Next interrupted the script; its goroutine stops at its next instruction, and the slot is
	// free then.
	go func() {
		for it.Next(context.Background()) {
		}
		it.Close()
		if cause == errGizmoMemory {
			debug.FreeOSMemory() // the script's memory is garbage now: back to the system
		}
		release()
	}()
	switch cause {
	case errGizmoMemory:
		return nil, errorf(CodeQueryError, fmt.Sprintf("gizmo: the script was stopped at the memory limit (%d MiB per script)", GizmoMaxMemory>>20),
			map[string]any{"limit": GizmoMaxMemory})
	case errGizmoTime:
		return nil, errorf(CodeQueryError, "gizmo: the query ran out of time ("+GizmoTimeout.String()+")", map[string]any{"limit": GizmoTimeout.String()})
	}
	return nil, errorf(CodeQueryError, "gizmo: the query was abandoned", nil)
}

// watchHeap calls over once the heap has grown by more than GizmoMaxMemory since it started and a
// collection does not bring it back under; the returned func stops it (and waits for it).
func watchHeap(ctx context.Context, over func()) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	base := heapObjects()
	go func() {
		defer close(stopped)
		tick := time.NewTicker(gizmoWatchEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			grown := heapObjects()
			if grown <= base+GizmoMaxMemory {
				continue
			}
			// Past twice the bound, it grew by more than the bound since the last sample (or the
			// last collection): no traversal makes garbage that fast, a growing value does.
			if grown > base+2*GizmoMaxMemory {
				over()
				return
			}
			runtime.GC() // what grew may be garbage (Cayley's iterators make plenty)
			if now := heapObjects(); now > base+GizmoMaxMemory {
				over()
				return
			} else {
				base = max(base, now) // garbage since start is not held against the script
			}
		}
	}()
	return func() { close(done); <-stopped }
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

// heapObjects is the heap's objects, live and not yet swept, in bytes.
func heapObjects() uint64 {
	s := make([]metrics.Sample, 1)
	copy(s, heapSample)
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// gizmoJSON is a raw Gizmo result as Cayley's JSON collation gives it, except that a language-tagged
// string keeps its tag ("chat"@fr; the JSON collation answers "chat" for every language).
func gizmoJSON(qs graph.QuadStore, raw any) any {
	r, ok := raw.(*gizmo.Result)
	if !ok || r == nil || r.Meta {
		return nil
	}
	if r.Val != nil {
		return r.Val
	}
	obj := map[string]any{}
	for k, ref := range r.Tags {
		v := qs.NameOf(ref)
		if v == nil {
			continue
		}
		if _, lang := v.(quad.LangString); lang {
			obj[k] = quad.StringOf(v)
			continue
		}
		out := v.Native()
		if nv, ok := out.(quad.Value); ok && nv == v {
			out = quad.StringOf(v)
		}
		obj[k] = out
	}
	return obj
}
