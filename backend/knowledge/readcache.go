package knowledge

import (
	"context"
	"sync"

	"github.com/cayleygraph/cayley/graph"
	cayleykv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/shape"
	"github.com/cayleygraph/quad"
)

// valueCacheSize is how many node values one generation of a namedStore's cache holds (it keeps
// two): ~64k IRIs and literals, a few MB, enough for the neighbourhoods around the hubs.
const valueCacheSize = 1 << 16

// namedStore is Cayley's kv store with the values of its nodes cached by node id.
//
// Turning a node id into its value (NameOf, and each direction of Quad) is, in Cayley's kv, a read
// transaction of bolt, a lookup in its log bucket and a protobuf decode: for a 2-hop
// neighbourhood that was about half of its time (every result is named), and most of a node
// lookup's (every out-edge's quad is resolved). It needs no invalidation: Cayley gives each node a
// new id from its ever-growing "horizon" counter and never reuses one, and a node's value is written
// once with it, so an id names the same value for as long as the store exists, and the cache lives
// exactly as long (a rebuilt graph is a new store with a new cache). A node removed with its last
// statement drops out of the indexes, so no query reaches its id again; its entry just ages out.
// Which quads exist, and which node a value has now (ValueOf), is always read from bolt.
type namedStore struct {
	graph.QuadStore
	kv *cayleykv.QuadStore

	mu        sync.RWMutex
	cur, prev map[cayleykv.Int64Value]quad.Value // two generations: an approximate LRU
}

func newNamedStore(qs graph.QuadStore) graph.QuadStore {
	kv, ok := qs.(*cayleykv.QuadStore)
	if !ok {
		return qs
	}
	return &namedStore{QuadStore: qs, kv: kv, cur: make(map[cayleykv.Int64Value]quad.Value)}
}

// cached is the value of node id when the cache holds it.
func (s *namedStore) cached(id cayleykv.Int64Value) (quad.Value, bool) {
	s.mu.RLock()
	v, ok := s.cur[id]
	if !ok {
		v, ok = s.prev[id]
	}
	s.mu.RUnlock()
	if ok {
		s.remember(id, v) // used again: keep it in the current generation
	}
	return v, ok
}

func (s *namedStore) remember(id cayleykv.Int64Value, v quad.Value) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.cur[id]; ok {
		return
	}
	if len(s.cur) >= valueCacheSize {
		s.prev, s.cur = s.cur, make(map[cayleykv.Int64Value]quad.Value, valueCacheSize)
	}
	s.cur[id] = v
}

// valuesOf names refs (nil for a ref that names nothing), reading from bolt, in one transaction,
// only the nodes the cache does not hold.
func (s *namedStore) valuesOf(ctx context.Context, refs []graph.Ref) ([]quad.Value, error) {
	out, missing, at := fromCache(refs, func(r graph.Ref) (quad.Value, bool) {
		id, ok := r.(cayleykv.Int64Value)
		if !ok || id == 0 {
			return nil, false // not a node id: Cayley's answer
		}
		return s.cached(id)
	})
	if len(missing) == 0 {
		return out, nil
	}
	vs, err := s.kv.ValuesOf(ctx, missing)
	for j, v := range vs {
		out[at[j]] = v
		if id, ok := missing[j].(cayleykv.Int64Value); ok && v != nil {
			s.remember(id, v)
		}
	}
	return out, err
}

func (s *namedStore) NameOf(r graph.Ref) quad.Value {
	if id, ok := r.(cayleykv.Int64Value); ok {
		if v, ok := s.cached(id); ok {
			return v
		}
	}
	vs, err := s.valuesOf(context.Background(), []graph.Ref{r})
	if err != nil {
		return nil
	}
	return vs[0]
}

func (s *namedStore) ValuesOf(ctx context.Context, refs []graph.Ref) ([]quad.Value, error) {
	return s.valuesOf(ctx, refs)
}

func (s *namedStore) RefsOf(ctx context.Context, nodes []quad.Value) ([]graph.Ref, error) {
	return s.kv.RefsOf(ctx, nodes)
}

// Quad names the directions of a quad ref (Cayley's quad primitive, which holds their node ids).
func (s *namedStore) Quad(r graph.Ref) quad.Quad {
	refs := make([]graph.Ref, 0, len(quad.Directions))
	for _, d := range quad.Directions {
		n := s.kv.QuadDirection(r, d)
		if n == nil {
			return s.kv.Quad(r) // not a quad of this store, or no label: as Cayley does it
		}
		refs = append(refs, n)
	}
	vs, err := s.valuesOf(context.Background(), refs)
	if err != nil {
		return quad.Quad{}
	}
	var q quad.Quad
	for i, d := range quad.Directions {
		q.Set(d, vs[i])
	}
	return q
}

// OptimizeShape lets Cayley's kv replace a quad filter by a scan of one of its indexes, as it
// does on its own store; the scan it returns builds its iterator only on the kv store itself, so
// it is wrapped to be built there.
func (s *namedStore) OptimizeShape(sh shape.Shape) (shape.Shape, bool) {
	out, ok := s.kv.OptimizeShape(sh)
	if !ok {
		return sh, false
	}
	return onKV(out, s.kv), true
}

// onKV is sh with every kv index scan in it (where Cayley's kv optimizer puts them: the quads of
// a NodesFrom, alone or in an intersection) built on kv.
func onKV(sh shape.Shape, kv *cayleykv.QuadStore) shape.Shape {
	switch sh := sh.(type) {
	case cayleykv.IndexScan:
		return kvScan{sh, kv}
	case shape.NodesFrom:
		sh.Quads = onKV(sh.Quads, kv)
		return sh
	case shape.Intersect:
		out := make(shape.Intersect, len(sh))
		for i, c := range sh {
			out[i] = onKV(c, kv)
		}
		return out
	}
	return sh
}

// kvScan is a kv index scan that builds its iterator on the kv store it came from.
type kvScan struct {
	cayleykv.IndexScan
	kv *cayleykv.QuadStore
}

func (k kvScan) BuildIterator(graph.QuadStore) graph.Iterator { return k.IndexScan.BuildIterator(k.kv) }

func (k kvScan) Optimize(shape.Optimizer) (shape.Shape, bool) { return k, false }

// quadsWith iterates the quads with node in direction dir and predicate pred, from the kv index
// that covers both when the store has one (its optimizer picks it from the store's own indexes), or
// nil: then the caller iterates the node's quads and checks the predicate, as it must anyway.
func (s *namedStore) quadsWith(dir quad.Direction, node, pred graph.Ref) graph.Iterator {
	sh, ok := s.kv.OptimizeShape(shape.QuadsAction{Result: dir, Filter: map[quad.Direction]graph.Ref{dir: node, quad.Predicate: pred}})
	if !ok {
		return nil
	}
	nf, ok := sh.(shape.NodesFrom)
	if !ok {
		return nil
	}
	scan, ok := nf.Quads.(cayleykv.IndexScan)
	if !ok || len(scan.Values) != 2 {
		return nil
	}
	return scan.BuildIterator(s.kv)
}

// fromCache answers each of keys that cached holds, and returns the others (misses), with their
// places in out, for one read of what is behind the cache.
func fromCache[K, V any](keys []K, cached func(K) (V, bool)) (out []V, misses []K, at []int) {
	out = make([]V, len(keys))
	for i, k := range keys {
		if v, ok := cached(k); ok {
			out[i] = v
			continue
		}
		misses, at = append(misses, k), append(at, i)
	}
	return out, misses, at
}
