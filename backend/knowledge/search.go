package knowledge

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// SearchOptions scope a text search like a query's params do.
type SearchOptions struct {
	RequiredCertainty *float64 // only statements at least this certain (nil: any)
	MaxAgeSeconds     *int64   // only statements updated this recently (nil: any age)
	Limit             int      // at most this many nodes (<= 0: DefaultSearchLimit)
}

// DefaultSearchLimit bounds a search's nodes when the caller names no limit; MaxSearchLimit always.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 200
)

// maxAuthors bounds a query's authors (each is a placeholder of the statement filter).
const maxAuthors = 100

// SearchHit is one node some of whose literals (its label among them) contain the text searched.
type SearchHit struct {
	ID      string        `json:"id"`
	Label   string        `json:"label,omitempty"`
	Matches []SearchMatch `json:"matches"`
}

// SearchMatch is one literal statement of the node that contains the text.
type SearchMatch struct {
	Predicate string  `json:"predicate"`
	Value     any     `json:"value"`
	Certainty float64 `json:"certainty"`
}

// Search finds the nodes whose literals (rdfs:label and every other literal) contain text, ignoring
// case, within the scope of opts; nodes are ordered by id. An empty text is invalid params.
func (s *Service) Search(ctx context.Context, text string, opts SearchOptions) ([]SearchHit, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, errorf(CodeInvalidParams, "the text to search for is empty", nil)
	}
	v, err := scopeOf(opts.RequiredCertainty, opts.MaxAgeSeconds)
	if err != nil {
		return nil, err
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	w, args := v.sqlFilter()
	like := "%" + likeEscape(strings.ToLower(text)) + "%"
	// The nodes first (a page of them), then their matching literals: a node with many matching
	// literals does not crowd the others out of the page.
	nodes, err := s.db.Reader.QueryContext(ctx, `SELECT DISTINCT subject FROM kg_statements WHERE `+w+
		` AND object_id IS NULL AND lower(value_json) LIKE ? ESCAPE '\' ORDER BY subject LIMIT ?`, append(args, like, limit)...)
	if err != nil {
		return nil, err
	}
	var ids []string
	for nodes.Next() {
		var id string
		if err := nodes.Scan(&id); err != nil {
			nodes.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	nodes.Close()
	if err := nodes.Err(); err != nil {
		return nil, err
	}
	hits := make([]SearchHit, 0, len(ids))
	needle := strings.ToLower(text)
	for _, id := range ids {
		rs, err := selectRows(ctx, s.db.Reader, `SELECT `+rowColumns+` FROM kg_statements WHERE `+w+
			` AND subject = ? AND object_id IS NULL ORDER BY predicate, id`, append(append([]any{}, args...), id)...)
		if err != nil {
			return nil, err
		}
		hit := SearchHit{ID: id, Matches: []SearchMatch{}}
		for _, r := range rs {
			lit := literalText(r.Stmt.Object.Value)
			if r.Stmt.Predicate.ID == RDFSLabel && hit.Label == "" {
				hit.Label = lit
			}
			// value_json matched in SQL; the literal's own text decides (JSON escapes aside).
			if strings.Contains(strings.ToLower(lit), needle) {
				hit.Matches = append(hit.Matches, SearchMatch{Predicate: r.Stmt.Predicate.ID, Value: r.Stmt.Object.Value, Certainty: *r.Stmt.Certainty})
			}
		}
		if len(hit.Matches) > 0 {
			hits = append(hits, hit)
		}
	}
	return hits, nil
}

// likeEscape makes text match itself in a LIKE … ESCAPE '\' pattern.
var likeEscape = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace

// scopeOf checks a query's scope params and returns the view they make.
func scopeOf(requiredCertainty *float64, maxAgeSeconds *int64, authors ...string) (*view, error) {
	if len(authors) > maxAuthors {
		return nil, errorf(CodeInvalidParams, fmt.Sprintf("authors names at most %d principals", maxAuthors), nil)
	}
	v := &view{authors: authors}
	if requiredCertainty != nil {
		if *requiredCertainty < 0 || *requiredCertainty > 1 {
			return nil, errorf(CodeInvalidParams, "requiredCertainty must be within [0, 1]", nil)
		}
		v.minCertainty = *requiredCertainty
	}
	if maxAgeSeconds != nil {
		if *maxAgeSeconds < 0 {
			return nil, errorf(CodeInvalidParams, "maxAgeSeconds must not be negative", nil)
		}
		v.since = time.Now().Add(-time.Duration(*maxAgeSeconds) * time.Second)
	}
	return v, nil
}
