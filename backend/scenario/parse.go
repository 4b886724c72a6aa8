// Package scenario runs saved scenarios against an A2A agent: a file of steps (send, reply to an
// input-required question, cancel) each with expectations about the agent's answer. It is what
// `agenthub scenario run` does, without the window or a running hub, through the hub's own client
// (agents.Conn), so every dialect the hub speaks works.
//
//	parse.go   the file format (YAML, or JSON as YAML), refused with file:line: reason before anything is sent
//	run.go     running the steps, the assertions, captured variables
//	report.go  the report: one line per step, JSON, JUnit XML; secrets masked
//
// scenario.schema.json is the file format as a JSON Schema, for editors.
package scenario

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/theory/jsonpath"
	"go.yaml.in/yaml/v3"
)

// DefaultTimeout bounds a step that says no timeout: an agent that hangs fails the step, and the run
// goes on.
const DefaultTimeout = 60 * time.Second

// Scenario is one parsed, checked file.
type Scenario struct {
	File    string
	Name    string // the file's name: key, else the file name
	Agent   string // a card URL, a base URL or an added agent's id; --agent overrides it
	Dialect string // "", "1.0", "0.3" or "0.1": force the protocol version
	Binding string // "", "JSONRPC", "HTTP+JSON" or "GRPC": force the binding
	Steps   []*Step
}

// Action is what a step does.
type Action string

const (
	ActSend   Action = "send"   // a new task (or message)
	ActReply  Action = "reply"  // a turn of the previous step's task (answering input-required)
	ActCancel Action = "cancel" // cancel the previous step's task
)

// Step is one request and what its answer must be.
type Step struct {
	Line    int
	Name    string
	Action  Action
	Text    string // send/reply text; may hold ${var}
	Data    any    // a data part (send/reply), ${var} in its strings
	HasData bool
	Files   []File // file parts (send/reply)
	// A2UI is a list of A2UI client messages (an action on a surface the agent drew, an error),
	// sent as one application/a2ui+json data part into the previous step's task; ${var} in its strings.
	A2UI    any
	Stream  bool
	Timeout time.Duration
	Expect  Expect
	Capture []Capture
}

// File is a file part a step sends, its content given as text or base64.
type File struct {
	Name, MediaType string
	Bytes           []byte
}

// Capture names a value of the step's answer (a JSON path) that later steps use as ${Name}.
type Capture struct {
	Name string
	Path *jsonpath.Path
	Line int
}

// Expect is what must hold of a step's answer; nil/zero fields are not checked.
type Expect struct {
	State            string // a task state (completed, input-required, ...) or "message"
	TextContains     *string
	TextMatches      *string // a regular expression; ${var} values are matched literally
	JSONPath         []PathExpect
	ArtifactNames    []string
	MediaTypes       []string
	Events           *Count
	FirstEventWithin time.Duration
	FinalWithin      time.Duration
	NoError          *bool // true: the call must not fail; false: it must fail (a refusal is expected)
}

// PathExpect says a JSON path of the answer selects a node equal to Want.
type PathExpect struct {
	Expr string
	Path *jsonpath.Path
	Want any
}

// Count is an events bound: exactly N, or at least/most N.
type Count struct {
	Op string // "==", ">=", "<="
	N  int
}

func (c Count) holds(n int) bool {
	switch c.Op {
	case ">=":
		return n >= c.N
	case "<=":
		return n <= c.N
	}
	return n == c.N
}

func (c Count) String() string {
	if c.Op == "==" {
		return strconv.Itoa(c.N)
	}
	return c.Op + " " + strconv.Itoa(c.N)
}

// States are the task states a step may expect, as the file spells them, and "message".
var States = map[string]bool{
	"submitted": true, "working": true, "input-required": true, "auth-required": true,
	"completed": true, "canceled": true, "failed": true, "rejected": true, "message": true,
}

// Error is a refused file: where, and why.
type Error struct {
	File   string
	Line   int
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// Load reads and checks a scenario file.
func Load(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Line: 0, Reason: err.Error()}
	}
	return Parse(path, b)
}

var (
	varRef  = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
	varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Parse checks a scenario file's content (YAML or JSON, which is YAML) and returns it, or an *Error
// at the first thing wrong: an unknown field, a value of the wrong kind, a bad regular expression or
// JSON path, a ${var} no earlier step captures, a step that cannot apply where it stands.
func Parse(file string, src []byte) (*Scenario, error) {
	p := &parser{file: file, vars: map[string]bool{}}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil {
		return nil, p.yamlErr(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, p.fail(&extra, "more than one YAML document; a scenario file holds one")
	}
	if len(doc.Content) == 0 {
		return nil, &Error{File: file, Line: 1, Reason: "empty file"}
	}
	s, err := p.scenario(doc.Content[0])
	if err != nil {
		return nil, err
	}
	return s, nil
}

type parser struct {
	file string
	vars map[string]bool // captured by the steps so far
}

func (p *parser) fail(n *yaml.Node, format string, args ...any) error {
	return &Error{File: p.file, Line: n.Line, Reason: fmt.Sprintf(format, args...)}
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func (p *parser) yamlErr(err error) error {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{File: p.file, Line: n, Reason: m[2]}
	}
	return &Error{File: p.file, Line: 1, Reason: strings.TrimPrefix(err.Error(), "yaml: ")}
}

// fields walks a mapping, refusing keys not in known and keys given twice.
func (p *parser) fields(n *yaml.Node, what string, known []string, each func(key string, k, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return p.fail(n, "%s must be a mapping", what)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(known, k.Value) {
			return p.fail(k, "unknown field %q in %s (known: %s)", k.Value, what, strings.Join(known, ", "))
		}
		if seen[k.Value] {
			return p.fail(k, "field %q given twice in %s", k.Value, what)
		}
		seen[k.Value] = true
		if err := each(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) str(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!map" || n.Tag == "!!seq" {
		return "", p.fail(n, "%s must be a string", what)
	}
	return n.Value, nil
}

func (p *parser) boolean(n *yaml.Node, what string) (bool, error) {
	var b bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
		return false, p.fail(n, "%s must be true or false", what)
	}
	return b, nil
}

func (p *parser) duration(n *yaml.Node, what string) (time.Duration, error) {
	s, err := p.str(n, what)
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, p.fail(n, "%s must be a positive duration such as \"2s\" or \"500ms\", not %q", what, s)
	}
	return d, nil
}

func (p *parser) stringList(n *yaml.Node, what string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.fail(n, "%s must be a list of strings", what)
	}
	var out []string
	for _, item := range n.Content {
		s, err := p.str(item, what+" item")
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// checkVars refuses a ${var} that no earlier step captures.
func (p *parser) checkVars(n *yaml.Node, s string) error {
	for _, m := range varRef.FindAllStringSubmatch(s, -1) {
		if !p.vars[m[1]] {
			return p.fail(n, "${%s} is not captured by an earlier step", m[1])
		}
	}
	return nil
}

// checkVarsIn does checkVars over every string of a node tree (a data part, an expected value).
func (p *parser) checkVarsIn(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return p.checkVars(n, n.Value)
	}
	for _, c := range n.Content {
		if err := p.checkVarsIn(c); err != nil {
			return err
		}
	}
	return nil
}

// value decodes any YAML value as JSON would have it (maps with string keys).
func (p *parser) value(n *yaml.Node, what string) (any, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, p.fail(n, "%s: %v", what, err)
	}
	v, err := jsonish(v)
	if err != nil {
		return nil, p.fail(n, "%s: %v", what, err)
	}
	return v, nil
}

// jsonish turns a decoded YAML value into what encoding/json would decode from its JSON form, so it
// compares equal with the agent's answers (numbers float64, maps keyed by strings).
func jsonish(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, errors.New("not representable as JSON")
	}
	var out any
	return out, json.Unmarshal(b, &out)
}

var (
	topFields    = []string{"name", "agent", "binding", "dialect", "steps"}
	stepFields   = []string{"name", "send", "reply", "cancel", "data", "files", "a2ui", "stream", "timeout", "expect", "capture"}
	expectFields = []string{"state", "textContains", "textMatches", "jsonPath", "artifactNames", "mediaTypes", "events",
		"firstEventWithin", "finalWithin", "noError"}
)

func (p *parser) scenario(n *yaml.Node) (*Scenario, error) {
	s := &Scenario{File: p.file}
	var stepsNode *yaml.Node
	err := p.fields(n, "the scenario", topFields, func(key string, k, v *yaml.Node) (err error) {
		switch key {
		case "name":
			s.Name, err = p.str(v, "name")
		case "agent":
			s.Agent, err = p.str(v, "agent")
		case "binding", "dialect":
			val, err := p.str(v, key)
			if err != nil {
				return err
			}
			isVersion := val == "1.0" || val == "0.3" || val == "0.1"
			if b, ok := agents.ParseBinding(val); key == "binding" && ok && b != agents.Automatic {
				s.Binding = b.Name()
				return nil
			}
			// A version under binding: is what binding: meant before the hub spoke other bindings.
			if !isVersion {
				if key == "binding" {
					return p.fail(v, "binding must be \"JSONRPC\", \"HTTP+JSON\" or \"GRPC\", not %q", val)
				}
				return p.fail(v, "dialect must be \"1.0\", \"0.3\" or \"0.1\", not %q", val)
			}
			if s.Dialect != "" {
				return p.fail(k, "the protocol version is given twice; give it once, as dialect:")
			}
			s.Dialect = val
		case "steps":
			stepsNode = v
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if stepsNode == nil {
		return nil, p.fail(n, "no steps")
	}
	if stepsNode.Kind != yaml.SequenceNode || len(stepsNode.Content) == 0 {
		return nil, p.fail(stepsNode, "steps must be a non-empty list")
	}
	for i, sn := range stepsNode.Content {
		st, err := p.step(sn, i)
		if err != nil {
			return nil, err
		}
		s.Steps = append(s.Steps, st)
	}
	return s, nil
}

func (p *parser) step(n *yaml.Node, index int) (*Step, error) {
	st := &Step{Line: n.Line, Timeout: DefaultTimeout}
	var expectNode, captureNode *yaml.Node
	err := p.fields(n, fmt.Sprintf("step %d", index+1), stepFields, func(key string, k, v *yaml.Node) (err error) {
		switch key {
		case "name":
			st.Name, err = p.str(v, "name")
		case "send", "reply":
			if st.Action != "" {
				return p.fail(k, "a step does one thing: %s or %s, not both", st.Action, key)
			}
			st.Action = Action(key)
			if st.Text, err = p.str(v, key); err == nil {
				err = p.checkVars(v, st.Text)
			}
		case "cancel":
			var b bool
			if b, err = p.boolean(v, "cancel"); err == nil && !b {
				return p.fail(v, "cancel: false does nothing; leave it out")
			}
			if st.Action != "" {
				return p.fail(k, "a step does one thing: %s or cancel, not both", st.Action)
			}
			st.Action = ActCancel
		case "data":
			if v.Kind != yaml.MappingNode && v.Kind != yaml.SequenceNode {
				return p.fail(v, "data must be a mapping or a list (a data part)")
			}
			if err = p.checkVarsIn(v); err == nil {
				st.Data, err = p.value(v, "data")
				st.HasData = true
			}
		case "files":
			st.Files, err = p.files(v)
		case "a2ui":
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				return p.fail(v, "a2ui must be a non-empty list of A2UI messages (an action, an error)")
			}
			if err = p.checkVarsIn(v); err == nil {
				st.A2UI, err = p.value(v, "a2ui")
			}
		case "stream":
			st.Stream, err = p.boolean(v, "stream")
		case "timeout":
			st.Timeout, err = p.duration(v, "timeout")
		case "expect":
			expectNode = v
		case "capture":
			captureNode = v
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if st.Action == "" {
		switch {
		case st.A2UI != nil:
			st.Action = ActReply // an action on a surface goes into the task that drew it
		case st.HasData || len(st.Files) > 0:
			st.Action = ActSend // a data part or files alone
		default:
			return nil, p.fail(n, "step %d does nothing: give send, reply, a2ui or cancel: true", index+1)
		}
	}
	if st.Action == ActCancel && (st.HasData || st.Stream || len(st.Files) > 0 || st.A2UI != nil) {
		return nil, p.fail(n, "a cancel step sends nothing and does not stream")
	}
	if st.Action != ActSend && index == 0 {
		return nil, p.fail(n, "%s as the first step: there is no earlier task to %s", st.Action, st.Action)
	}
	if st.Name == "" {
		st.Name = describe(st)
	}
	if expectNode != nil {
		if st.Expect, err = p.expect(expectNode, st); err != nil {
			return nil, err
		}
	}
	// Captures come after the step's own expectations: a step cannot use what it captures itself.
	if captureNode != nil {
		if captureNode.Kind != yaml.MappingNode {
			return nil, p.fail(captureNode, "capture must map names to JSON paths")
		}
		for i := 0; i+1 < len(captureNode.Content); i += 2 {
			k, v := captureNode.Content[i], captureNode.Content[i+1]
			if !varName.MatchString(k.Value) {
				return nil, p.fail(k, "capture name %q: use letters, digits and _", k.Value)
			}
			expr, err := p.str(v, "capture "+k.Value)
			if err != nil {
				return nil, err
			}
			path, err := jsonpath.Parse(expr)
			if err != nil {
				return nil, p.fail(v, "capture %s: bad JSON path %q: %v", k.Value, expr, err)
			}
			st.Capture = append(st.Capture, Capture{Name: k.Value, Path: path, Line: v.Line})
			p.vars[k.Value] = true
		}
	}
	return st, nil
}

// files reads a step's files: each {name, mediaType, text | base64}.
func (p *parser) files(n *yaml.Node) ([]File, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, p.fail(n, "files must be a non-empty list of {name, mediaType, text or base64}")
	}
	var out []File
	for i, fn := range n.Content {
		var f File
		var text, b64 *string
		err := p.fields(fn, fmt.Sprintf("file %d", i+1), []string{"name", "mediaType", "text", "base64"}, func(key string, _, v *yaml.Node) (err error) {
			var s string
			if s, err = p.str(v, key); err != nil {
				return err
			}
			switch key {
			case "name":
				f.Name = s
			case "mediaType":
				f.MediaType = s
			case "text":
				text = &s
			case "base64":
				b64 = &s
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		switch {
		case f.Name == "":
			return nil, p.fail(fn, "file %d has no name", i+1)
		case (text == nil) == (b64 == nil):
			return nil, p.fail(fn, "file %d needs its content as text or as base64, one of them", i+1)
		case text != nil:
			f.Bytes = []byte(*text)
		default:
			b, err := base64.StdEncoding.DecodeString(*b64)
			if err != nil {
				return nil, p.fail(fn, "file %d: base64: %v", i+1, err)
			}
			f.Bytes = b
		}
		if len(f.Bytes) == 0 {
			return nil, p.fail(fn, "file %d is empty: A2A cannot carry an empty file", i+1)
		}
		if f.MediaType == "" {
			f.MediaType = "application/octet-stream"
		}
		out = append(out, f)
	}
	return out, nil
}

func describe(st *Step) string {
	switch st.Action {
	case ActCancel:
		return "cancel"
	case ActReply:
		if st.Text == "" && st.A2UI != nil {
			return "A2UI action"
		}
		return "reply " + strconv.Quote(st.Text)
	}
	if st.Text == "" && len(st.Files) > 0 && !st.HasData {
		return "send files"
	}
	if st.Text == "" {
		return "send data"
	}
	return "send " + strconv.Quote(st.Text)
}

func (p *parser) expect(n *yaml.Node, st *Step) (Expect, error) {
	var e Expect
	err := p.fields(n, "expect", expectFields, func(key string, k, v *yaml.Node) (err error) {
		switch key {
		case "state":
			if e.State, err = p.str(v, "state"); err == nil && !States[e.State] {
				return p.fail(v, "state %q is not one of submitted, working, input-required, auth-required, completed, canceled, failed, rejected, message", e.State)
			}
		case "textContains":
			var s string
			if s, err = p.str(v, key); err == nil {
				e.TextContains = &s
				err = p.checkVars(v, s)
			}
		case "textMatches":
			var s string
			if s, err = p.str(v, key); err != nil {
				return err
			}
			if err = p.checkVars(v, s); err != nil {
				return err
			}
			// A captured value is matched literally; here it stands for any text.
			if _, rerr := regexp.Compile(varRef.ReplaceAllString(s, "")); rerr != nil {
				return p.fail(v, "textMatches: bad regular expression %q: %v", s, rerr)
			}
			e.TextMatches = &s
		case "jsonPath":
			if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
				return p.fail(v, "jsonPath must map JSON paths to the values expected there")
			}
			for i := 0; i+1 < len(v.Content); i += 2 {
				pk, pv := v.Content[i], v.Content[i+1]
				path, perr := jsonpath.Parse(pk.Value)
				if perr != nil {
					return p.fail(pk, "jsonPath: bad JSON path %q: %v", pk.Value, perr)
				}
				if err = p.checkVarsIn(pv); err != nil {
					return err
				}
				want, err := p.value(pv, "jsonPath "+pk.Value)
				if err != nil {
					return err
				}
				e.JSONPath = append(e.JSONPath, PathExpect{Expr: pk.Value, Path: path, Want: want})
			}
		case "artifactNames":
			e.ArtifactNames, err = p.stringList(v, key)
		case "mediaTypes":
			e.MediaTypes, err = p.stringList(v, key)
		case "events":
			if !st.Stream {
				return p.fail(k, "events counts a streamed step's events: add stream: true")
			}
			e.Events, err = p.count(v)
		case "firstEventWithin":
			e.FirstEventWithin, err = p.duration(v, key)
		case "finalWithin":
			e.FinalWithin, err = p.duration(v, key)
		case "noError":
			var b bool
			if b, err = p.boolean(v, key); err == nil {
				e.NoError = &b
			}
		}
		return err
	})
	return e, err
}

var countExpr = regexp.MustCompile(`^\s*(>=|<=|==)?\s*(\d+)\s*$`)

func (p *parser) count(n *yaml.Node) (*Count, error) {
	m := countExpr.FindStringSubmatch(n.Value)
	if n.Kind != yaml.ScalarNode || m == nil {
		return nil, p.fail(n, "events must be a number, or \">= N\" / \"<= N\", not %q", n.Value)
	}
	c := &Count{Op: m[1], N: 0}
	if c.Op == "" {
		c.Op = "=="
	}
	c.N, _ = strconv.Atoi(m[2])
	return c, nil
}
