package knowledge

import (
	"context"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/quad"
)

// viewStore is the graph as a Gizmo script with requiredCertainty or maxAgeSeconds sees it: the
// bolt store itself, whose quad iterators leave out the hidden statements (an And with a Not over
// their quads) and whose node list leaves out the nodes that only hidden statements hold. The
// script so runs on bolt's indexes; only the hidden statements are read into memory (a copy of the
// visible ones took seconds and a memstore's memory per query at 100k statements).
type viewStore struct {
	graph.QuadStore
	hidden      []graph.Ref // the hidden statements' quads
	hiddenNodes []graph.Ref // the nodes that are in hidden statements only
	hiddenNode  map[any]bool
}

// ValueOf has no ref for a node that only hidden statements hold (g.V("<x>") starts from nothing).
func (v *viewStore) ValueOf(val quad.Value) graph.Ref {
	ref := v.QuadStore.ValueOf(val)
	if ref != nil && v.hiddenNode[graph.ToKey(ref)] {
		return nil
	}
	return ref
}

func (v *viewStore) visible(it graph.Iterator, all func() graph.Iterator, refs []graph.Ref) graph.Iterator {
	if len(refs) == 0 {
		return it
	}
	return iterator.NewAnd(it, iterator.NewNot(iterator.NewFixed(refs...), all()))
}

func (v *viewStore) QuadIterator(d quad.Direction, r graph.Ref) graph.Iterator {
	return v.visible(v.QuadStore.QuadIterator(d, r), v.QuadStore.QuadsAllIterator, v.hidden)
}

func (v *viewStore) QuadsAllIterator() graph.Iterator {
	return v.visible(v.QuadStore.QuadsAllIterator(), v.QuadStore.QuadsAllIterator, v.hidden)
}

func (v *viewStore) NodesAllIterator() graph.Iterator {
	return v.visible(v.QuadStore.NodesAllIterator(), v.QuadStore.NodesAllIterator, v.hiddenNodes)
}

// quadRef is the graph's ref of q, or nil when the graph does not hold it. It compares the node
// ids the subject's quads carry, so no quad is decoded.
func (s *Service) quadRef(ctx context.Context, q quad.Quad) (graph.Ref, error) {
	var refs [4]graph.Ref
	for i, d := range []quad.Direction{quad.Subject, quad.Predicate, quad.Object, quad.Label} {
		if v := q.Get(d); v != nil {
			if refs[i] = s.qs.ValueOf(v); refs[i] == nil {
				return nil, nil // a value the graph does not have
			}
		}
	}
	it := s.qs.QuadIterator(quad.Subject, refs[0])
	defer it.Close()
	for it.Next(ctx) {
		r := it.Result()
		if s.qs.QuadDirection(r, quad.Predicate) == refs[1] && s.qs.QuadDirection(r, quad.Object) == refs[2] &&
			s.qs.QuadDirection(r, quad.Label) == refs[3] {
			return r, nil
		}
	}
	return nil, it.Err()
}

// newViewStore is the graph less the statements rows (hidden by the query's view).
func (s *Service) newViewStore(ctx context.Context, rows []*row) (*viewStore, error) {
	v := &viewStore{QuadStore: s.qs, hiddenNode: map[any]bool{}}
	hidden := map[any]bool{}
	nodes := map[any]graph.Ref{}
	for _, r := range rows {
		q := r.Stmt.quadOf()
		ref, err := s.quadRef(ctx, q)
		if err != nil {
			return nil, err
		}
		if ref == nil {
			continue // not in the graph (yet): nothing to hide
		}
		v.hidden = append(v.hidden, ref)
		hidden[graph.ToKey(ref)] = true
		for _, d := range []quad.Direction{quad.Subject, quad.Predicate, quad.Object, quad.Label} {
			if n := s.qs.QuadDirection(ref, d); n != nil {
				nodes[graph.ToKey(n)] = n
			}
		}
	}
	// A node of a hidden statement stays listed if some visible quad holds it, in any direction.
	for _, n := range nodes {
		seen := false
		for _, d := range []quad.Direction{quad.Subject, quad.Predicate, quad.Object, quad.Label} {
			it := s.qs.QuadIterator(d, n)
			for !seen && it.Next(ctx) {
				seen = !hidden[graph.ToKey(it.Result())]
			}
			err := it.Err()
			it.Close()
			if err != nil {
				return nil, err
			}
			if seen {
				break
			}
		}
		if !seen {
			v.hiddenNodes = append(v.hiddenNodes, n)
			v.hiddenNode[graph.ToKey(n)] = true
		}
	}
	return v, nil
}
