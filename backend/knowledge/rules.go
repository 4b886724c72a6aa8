package knowledge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// RulesFile is the alignment rules' file name in the data dir.
const RulesFile = "knowledge-rules.json"

// Rules are the hub's alignment rules for knowledge/update, read from RulesFile at start.
type Rules struct {
	// ReadOnlyNamespaces: no statement whose subject or graph starts with one of these may change.
	ReadOnlyNamespaces []string `json:"readOnlyNamespaces"`
	// ForbiddenPredicates may not be added or removed.
	ForbiddenPredicates []string `json:"forbiddenPredicates"`
	// CertaintyFloor: added statements must be at least this certain (absent certainty is 1).
	CertaintyFloor float64 `json:"certaintyFloor"`
	// MaxPatchSize bounds the mutations of one request.
	MaxPatchSize int `json:"maxPatchSize"`
	// Writers are the principals who may update: exact ids ("agent://x", "anonymous",
	// "user://owner") or a prefix ending in "*" ("agent://*").
	Writers []string `json:"writers"`
}

// DefaultRules are written to the data dir on first start.
func DefaultRules() Rules {
	return Rules{
		ReadOnlyNamespaces:  []string{"agenthub:"},
		ForbiddenPredicates: []string{},
		CertaintyFloor:      0,
		MaxPatchSize:        1000,
		Writers:             []string{"user://owner", "agent://*"},
	}
}

// LoadRules reads path, writing the defaults there when it does not exist yet; an unreadable or
// invalid file is an error (the hub does not start with rules it cannot apply).
func LoadRules(path string) (Rules, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		r := DefaultRules()
		b, _ := json.MarshalIndent(r, "", "  ")
		return r, os.WriteFile(path, append(b, '\n'), 0o600)
	}
	if err != nil {
		return Rules{}, err
	}
	var r Rules
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Rules{}, fmt.Errorf("%s: %w", path, err)
	}
	if r.CertaintyFloor < 0 || r.CertaintyFloor > 1 || r.MaxPatchSize < 0 {
		return Rules{}, fmt.Errorf("%s: certaintyFloor must be within [0, 1] and maxPatchSize >= 0", path)
	}
	if r.MaxPatchSize == 0 {
		r.MaxPatchSize = DefaultRules().MaxPatchSize
	}
	return r, nil
}

// mayWrite says whether principal id is one of the writers.
func (r Rules) mayWrite(id string) bool {
	for _, w := range r.Writers {
		if p, ok := strings.CutSuffix(w, "*"); ok && strings.HasPrefix(id, p) || w == id {
			return true
		}
	}
	return false
}

// check returns the first rule the request breaks, as the verification details, or "".
func (r Rules) check(principal string, patches []Patch) string {
	if !r.mayWrite(principal) {
		return fmt.Sprintf("%s may not update this knowledge graph", principal)
	}
	if len(patches) > r.MaxPatchSize {
		return fmt.Sprintf("%d mutations exceed the maximum patch size of %d", len(patches), r.MaxPatchSize)
	}
	for i, p := range patches {
		s := p.Statement
		for _, ns := range r.ReadOnlyNamespaces {
			if strings.HasPrefix(s.Subject.ID, ns) || s.Graph != "" && strings.HasPrefix(s.Graph, ns) {
				return fmt.Sprintf("mutations[%d]: namespace %s is read-only", i, ns)
			}
		}
		for _, fp := range r.ForbiddenPredicates {
			if s.Predicate.ID == fp {
				return fmt.Sprintf("mutations[%d]: predicate %s is forbidden", i, fp)
			}
		}
		if p.Op != OpRemove && s.Certainty != nil && *s.Certainty < r.CertaintyFloor {
			return fmt.Sprintf("mutations[%d]: certainty %g is below the floor %g", i, *s.Certainty, r.CertaintyFloor)
		}
	}
	return ""
}
