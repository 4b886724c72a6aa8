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
	// QuotaStatements and QuotaBytes bound what the statements one principal last wrote may hold
	// (how many; their text, metadata included): an update that would pass either is refused
	// (-32011). 0 or absent: the default.
	QuotaStatements int64 `json:"quotaStatements"`
	QuotaBytes      int64 `json:"quotaBytes"`
	// QuotaExempt principals have no quota (exact ids or prefixes ending in "*"); absent: the
	// owner, whose hub and disk it is (an import of a large graph goes through the owner).
	QuotaExempt []string `json:"quotaExempt"`
	// Editors are the principals who may change or remove a statement another principal wrote
	// (its author, see Statement.author): exact ids or prefixes ending in "*". Absent: every writer
	// may; ["user://owner"]: each agent keeps to its own statements, and the owner edits them all.
	Editors []string `json:"editors,omitempty"`
}

// StatusNotAuthor is the verification status of an update refused because it would change
// statements its caller did not write (Rules.Editors).
const StatusNotAuthor = "Rejected - Not The Author"

// othersStatement is the refusal of a change to a statement author wrote, by principal, who is not
// one of the editors; nil when the rules let principal change it.
func (r Rules) othersStatement(principal, author string, i int, st Statement) error {
	if r.Editors == nil || author == principal || matches(r.Editors, principal) {
		return nil
	}
	why := fmt.Sprintf("mutations[%d]: %s %s … was written by %s, and %s may change only its own statements", i, st.Subject.ID, st.Predicate.ID, author, principal)
	return errorf(CodeAlignmentError, "alignment violation: "+why,
		map[string]any{"verificationStatus": StatusNotAuthor, "verificationDetails": why, "author": author})
}

// Default quotas: a desktop user's agents do not come near them (the hub's benchmarks load 1M
// statements of ~150 bytes, ~150 MB), a hostile key stops there (512 MiB of text is about 2.5 GiB
// of data dir, each statement being stored several times over).
const (
	DefaultQuotaStatements = 1_000_000
	DefaultQuotaBytes      = 512 << 20
)

// DefaultRules are written to the data dir on first start.
func DefaultRules() Rules {
	return Rules{
		ReadOnlyNamespaces:  []string{"agenthub:"},
		ForbiddenPredicates: []string{},
		CertaintyFloor:      0,
		MaxPatchSize:        1000,
		Writers:             []string{"user://owner", "agent://*"},
		QuotaStatements:     DefaultQuotaStatements,
		QuotaBytes:          DefaultQuotaBytes,
		QuotaExempt:         []string{"user://owner"},
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
	if r.CertaintyFloor < 0 || r.CertaintyFloor > 1 || r.MaxPatchSize < 0 || r.QuotaStatements < 0 || r.QuotaBytes < 0 {
		return Rules{}, fmt.Errorf("%s: certaintyFloor must be within [0, 1], maxPatchSize, quotaStatements and quotaBytes >= 0", path)
	}
	// A file written before a field existed (or leaving it 0) gets its default.
	def := DefaultRules()
	if r.MaxPatchSize == 0 {
		r.MaxPatchSize = def.MaxPatchSize
	}
	if r.QuotaStatements == 0 {
		r.QuotaStatements = def.QuotaStatements
	}
	if r.QuotaBytes == 0 {
		r.QuotaBytes = def.QuotaBytes
	}
	if r.QuotaExempt == nil {
		r.QuotaExempt = def.QuotaExempt
	}
	return r, nil
}

// matches says whether id is one of patterns: exact ids, or prefixes ending in "*".
func matches(patterns []string, id string) bool {
	for _, w := range patterns {
		if p, ok := strings.CutSuffix(w, "*"); ok && strings.HasPrefix(id, p) || w == id {
			return true
		}
	}
	return false
}

// quota is what one principal's statements may hold.
type quota struct{ statements, bytes int64 }

// quotaOf is principal id's quota, nil when it has none.
func (r Rules) quotaOf(id string) *quota {
	if matches(r.QuotaExempt, id) {
		return nil
	}
	return &quota{r.QuotaStatements, r.QuotaBytes}
}

// StatusQuotaExceeded is the verification status of an update refused for its writer's quota.
const StatusQuotaExceeded = "Rejected - Quota Exceeded"

// check refuses an update that took principal's usage from used to after past the quota; one that
// does not grow a measure (a removal, a smaller replace) passes even over it, so that a principal
// over its quota (lowered since) may still clean up.
func (q *quota) check(principal string, used, after usage) error {
	for _, m := range []struct {
		name              string
		limit, used, want int64
	}{
		{"quotaStatements", q.statements, used.statements, after.statements},
		{"quotaBytes", q.bytes, used.bytes, after.bytes},
	} {
		if m.want > m.limit && m.want > m.used {
			why := fmt.Sprintf("%s's statements would take %s to %d, past its quota of %d (it uses %d); nothing was changed",
				principal, m.name, m.want, m.limit, m.used)
			return errorf(CodeUpdateError, "quota exceeded: "+why, map[string]any{
				"quota": m.name, "limit": m.limit, "used": m.used, "wouldUse": m.want, "principal": principal,
				"verificationStatus": StatusQuotaExceeded, "verificationDetails": why})
		}
	}
	return nil
}

// mayWrite says whether principal id is one of the writers.
func (r Rules) mayWrite(id string) bool { return matches(r.Writers, id) }

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
			if full := namespaceTerm(ns); strings.HasPrefix(s.Subject.ID, full) || s.Graph != "" && strings.HasPrefix(s.Graph, full) {
				return fmt.Sprintf("mutations[%d]: namespace %s is read-only", i, ns)
			}
		}
		for _, fp := range r.ForbiddenPredicates {
			if s.Predicate.ID == canonicalTerm(fp) { // the statement's terms are in their stored form
				return fmt.Sprintf("mutations[%d]: predicate %s is forbidden", i, fp)
			}
		}
		if p.Op != OpRemove && s.Certainty != nil && *s.Certainty < r.CertaintyFloor {
			return fmt.Sprintf("mutations[%d]: certainty %g is below the floor %g", i, *s.Certainty, r.CertaintyFloor)
		}
	}
	return ""
}
