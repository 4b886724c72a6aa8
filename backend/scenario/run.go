package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/a2ui"
	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/agents/credentials"
)

// Connect opens the hub's client to the agent a scenario names, in the dialect and over the binding
// force names (each "" for the card's choice, with the hub's fallbacks), with key (may be "")
// applied as the card's schemes ask.
type Connect func(ctx context.Context, agent string, force Force, key string) (*agents.Conn, error)

// Force is what a scenario forces: a protocol version and a binding, each "" for none.
type Force struct{ Dialect, Binding string }

// Options are a run's settings.
type Options struct {
	Agent   string  // overrides the file's agent
	Key     string  // an API key or bearer token for the agent; never reported
	Connect Connect // nil: ConnectURL
	// OnStep, when set, is called with the result so far after each step (the app's live run view).
	OnStep func(*Result)
}

// ConnectURL resolves the agent's card from a card or base URL as the hub does when an agent is
// added, and dials it with the hub's client (agents.Dial): every dialect the hub speaks.
func ConnectURL(ctx context.Context, agent string, force Force, key string) (*agents.Conn, error) {
	_, card, err := agents.FetchCard(ctx, nil, agent)
	if err != nil {
		return nil, err
	}
	return DialCard(ctx, card, force, credentials.NewHTTPClient("scenario", card, KeyStore("scenario", card, key), nil))
}

// DialCard dials a card with hc, forcing the dialect and the binding force names.
func DialCard(ctx context.Context, card []byte, force Force, hc *http.Client) (*agents.Conn, error) {
	if force == (Force{}) {
		return agents.Dial(ctx, card, hc)
	}
	b := agents.Automatic
	if force.Binding != "" {
		var ok bool
		if b, ok = agents.ParseBinding(force.Binding); !ok {
			return nil, fmt.Errorf("binding %q: want JSONRPC, HTTP+JSON or GRPC", force.Binding)
		}
	}
	return agents.DialOnly(ctx, card, hc, agents.Dialect(force.Dialect), b)
}

// KeyStore is a credential store in memory holding key for every API key and bearer scheme the card
// declares for agentID: --key as the hub's client applies a saved credential (and masks it).
func KeyStore(agentID string, card []byte, key string) credentials.Secrets {
	m := &memSecrets{m: map[string]credentials.Secret{}}
	if key == "" {
		return m
	}
	for _, s := range credentials.CardAuth(card).Schemes {
		switch s.Kind {
		case credentials.SchemeAPIKey:
			m.m[agentID+"\x00"+s.Name] = credentials.Secret{APIKey: key}
		case credentials.SchemeBearer:
			m.m[agentID+"\x00"+s.Name] = credentials.Secret{Token: key}
		}
	}
	return m
}

type memSecrets struct {
	mu sync.Mutex
	m  map[string]credentials.Secret
}

func (s *memSecrets) Get(agentID, scheme string) (credentials.Secret, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[agentID+"\x00"+scheme]
	return v, ok, nil
}

func (s *memSecrets) Put(agentID, scheme string, v credentials.Secret) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[agentID+"\x00"+scheme] = v
	return nil
}

func (s *memSecrets) Delete(agentID, scheme string) error {
	return s.Put(agentID, scheme, credentials.Secret{})
}

func (s *memSecrets) DeleteAgent(string) error { return nil }
func (s *memSecrets) Where() string            { return "memory (--key)" }

// Result is one scenario's run.
type Result struct {
	File     string        `json:"file"`
	Name     string        `json:"name"`
	Agent    string        `json:"agent"`
	Dialect  string        `json:"dialect,omitempty"` // the one the client used last
	Binding  string        `json:"binding,omitempty"` // the one the client used last
	Error    string        `json:"error,omitempty"`   // the run could not start
	Passed   bool          `json:"passed"`
	Duration time.Duration `json:"durationNs"`
	Steps    []StepResult  `json:"steps"`
}

// StepResult is one step's outcome.
type StepResult struct {
	Index      int           `json:"index"` // from 1
	Name       string        `json:"name"`
	Line       int           `json:"line"`
	Passed     bool          `json:"passed"`
	Skipped    bool          `json:"skipped,omitempty"` // not run: the agent could not be reached
	State      string        `json:"state,omitempty"`   // the answer's task state, or "message"
	TaskID     string        `json:"taskId,omitempty"`
	Events     int           `json:"events"`
	Error      string        `json:"error,omitempty"`
	Duration   time.Duration `json:"durationNs"`
	Assertions []Assertion   `json:"assertions"`
	// Text and Data are what the agent answered (its reply text; its data parts as JSON), cut at
	// maxShown bytes: what a comparison of two runs shows side by side.
	Text string `json:"text,omitempty"`
	Data string `json:"data,omitempty"`
}

// maxShown bounds StepResult.Text and Data.
const maxShown = 4 << 10

// clip cuts s at maxShown bytes (on a rune boundary), saying so.
func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (cut)"
}

// Assertion is one checked expectation.
type Assertion struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"`
}

// Run runs the scenario's steps in order. A step that fails (an assertion, an error, its timeout)
// does not stop the run; a reply or cancel after a step that left no task fails on its own.
func Run(ctx context.Context, s *Scenario, opt Options) *Result {
	start := time.Now()
	res := &Result{File: s.File, Name: s.Name, Agent: s.Agent}
	if opt.Agent != "" {
		res.Agent = opt.Agent
	}
	if res.Name == "" {
		res.Name = s.File
	}
	connect := opt.Connect
	if connect == nil {
		connect = ConnectURL
	}
	var conn *agents.Conn
	var err error
	if res.Agent == "" {
		err = errors.New("no agent: give agent: in the file or --agent")
	} else {
		conn, err = connect(ctx, res.Agent, Force{Dialect: s.Dialect, Binding: s.Binding}, opt.Key)
	}
	if err != nil {
		res.Error = err.Error()
		for i, st := range s.Steps {
			res.Steps = append(res.Steps, StepResult{Index: i + 1, Name: st.Name, Line: st.Line, Skipped: true, Error: "not run: " + res.Error})
		}
		res.Duration = time.Since(start)
		return res
	}
	defer conn.Close()
	r := &runner{conn: conn, vars: map[string]string{}}
	res.Passed = true
	for i, st := range s.Steps {
		sr := r.step(ctx, st)
		sr.Index, sr.Name, sr.Line = i+1, st.Name, st.Line
		res.Passed = res.Passed && sr.Passed
		res.Steps = append(res.Steps, sr)
		if opt.OnStep != nil {
			res.Dialect, res.Binding, res.Duration = string(conn.Dialect()), conn.Endpoint().Binding.Name(), time.Since(start)
			opt.OnStep(res)
		}
	}
	res.Dialect, res.Binding = string(conn.Dialect()), conn.Endpoint().Binding.Name()
	res.Duration = time.Since(start)
	return res
}

type runner struct {
	conn *agents.Conn
	vars map[string]string
	// prev is the last step's task: what a reply continues and a cancel cancels.
	prev *a2a.Task
}

// answer is what a step got back.
type answer struct {
	task       *a2a.Task
	msg        *a2a.Message
	events     int
	firstEvent time.Duration
	err        error
}

// cancel cancels the previous step's task. An agent that calls a task it last reported unfinished
// (input-required, say) not cancelable is asked again, twice at most: a2a-go's server answers so when
// the cancel arrives while the turn that asked is still winding down, since its cancel then waits on
// that turn, which ends in input-required. Once the turn is over, the same request cancels the task,
// as the spec lets a task that is not in a terminal state be canceled.
func (r *runner) cancel(ctx context.Context) (*a2a.Task, error) {
	t, err := r.conn.Cancel(ctx, r.prev.ID)
	for wait := 100 * time.Millisecond; wait <= 200*time.Millisecond && errors.Is(err, a2a.ErrTaskNotCancelable) && !r.prev.Status.State.Terminal(); wait *= 2 {
		select {
		case <-ctx.Done():
			return t, err
		case <-time.After(wait):
		}
		t, err = r.conn.Cancel(ctx, r.prev.ID)
	}
	return t, err
}

func (r *runner) expand(s string) string {
	return varRef.ReplaceAllStringFunc(s, func(ref string) string { return r.vars[varRef.FindStringSubmatch(ref)[1]] })
}

func (r *runner) expandValue(v any) any { return mapStrings(v, r.expand) }

// mapStrings is v (JSON values) with f applied to every string in it; v is not changed.
func mapStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = mapStrings(e, f)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = mapStrings(e, f)
		}
		return out
	}
	return v
}

func (r *runner) step(parent context.Context, st *Step) StepResult {
	ctx, cancel := context.WithTimeout(parent, st.Timeout)
	defer cancel()
	start := time.Now()
	var ans answer
	switch st.Action {
	case ActCancel:
		if r.prev == nil {
			ans.err = errors.New("the previous step left no task to cancel")
			break
		}
		t, err := r.cancel(ctx)
		ans.events, ans.firstEvent, ans.task, ans.err = 1, time.Since(start), t, err
	default:
		msg := &a2a.Message{Role: a2a.MessageRoleUser}
		if st.Text != "" || (!st.HasData && len(st.Files) == 0 && st.A2UI == nil) {
			msg.Parts = append(msg.Parts, a2a.NewTextPart(r.expand(st.Text)))
		}
		if st.HasData {
			part := a2a.NewDataPart(r.expandValue(st.Data))
			msg.Parts = append(msg.Parts, part)
		}
		for _, f := range st.Files {
			part := a2a.NewRawPart(f.Bytes)
			part.Filename, part.MediaType = f.Name, f.MediaType
			msg.Parts = append(msg.Parts, part)
		}
		if st.A2UI != nil {
			list, _ := r.expandValue(st.A2UI).([]any)
			msg.Parts = append(msg.Parts, a2ui.Parts(list)...) // v0.8 messages one part each
		}
		if st.Action == ActReply {
			if r.prev == nil {
				ans.err = errors.New("the previous step left no task to reply to")
				break
			}
			msg.TaskID, msg.ContextID = r.prev.ID, r.prev.ContextID
		}
		for ev, err := range r.conn.Send(ctx, msg, st.Stream) {
			if err != nil {
				ans.err = err
				break
			}
			if ans.events == 0 {
				ans.firstEvent = time.Since(start)
			}
			ans.events++
			ans.apply(ev)
		}
	}
	took := time.Since(start)
	if ans.err != nil && ctx.Err() == context.DeadlineExceeded && parent.Err() == nil {
		ans.err = fmt.Errorf("no final answer within the step's timeout of %s", st.Timeout)
	}
	if ans.task != nil {
		r.prev = ans.task
	} else if st.Action == ActSend {
		r.prev = nil // a message answer, or none: nothing to reply to
	}
	sr := StepResult{Events: ans.events, Duration: took, Passed: true}
	if ans.err != nil {
		sr.Error = ans.err.Error()
	}
	switch {
	case ans.task != nil:
		sr.State, sr.TaskID = stateName(ans.task.Status.State), string(ans.task.ID)
	case ans.msg != nil:
		sr.State = "message"
	}
	sr.Text, sr.Data = clip(ans.text()), clip(ans.data())
	add := func(name string, ok bool, format string, args ...any) {
		a := Assertion{Name: name, Passed: ok}
		if !ok {
			a.Detail = fmt.Sprintf(format, args...)
		}
		sr.Assertions = append(sr.Assertions, a)
		sr.Passed = sr.Passed && ok
	}
	e := st.Expect
	// An error fails the step unless the file expects one (noError: false).
	if e.NoError != nil && !*e.NoError {
		add("noError: false", ans.err != nil, "the call succeeded; an error was expected")
		return sr
	}
	if ans.err != nil {
		add("noError", false, "%s", ans.err)
		return sr
	}
	if e.NoError != nil {
		add("noError", true, "")
	}
	doc := ans.document()
	if e.State != "" {
		add("state: "+e.State, sr.State == e.State, "state is %q", sr.State)
	}
	text := ans.text()
	if e.TextContains != nil {
		want := r.expand(*e.TextContains)
		add("textContains: "+want, strings.Contains(text, want), "text is %s", quoteShort(text))
	}
	if e.TextMatches != nil {
		expr := varRef.ReplaceAllStringFunc(*e.TextMatches, func(ref string) string {
			return regexp.QuoteMeta(r.vars[varRef.FindStringSubmatch(ref)[1]])
		})
		re, err := regexp.Compile(expr)
		add("textMatches: "+expr, err == nil && re.MatchString(text), "text is %s", quoteShort(text))
	}
	for _, pe := range e.JSONPath {
		want := r.expandValue(pe.Want)
		nodes := pe.Path.Select(doc)
		ok := false
		for _, n := range nodes {
			ok = ok || reflect.DeepEqual(n, want)
		}
		add(fmt.Sprintf("jsonPath: %s == %s", pe.Expr, compact(want)), ok, "selected %s", compact([]any(nodes)))
	}
	if len(e.ArtifactNames) > 0 {
		names := ans.artifactNames()
		missing := missingFrom(names, e.ArtifactNames)
		add("artifactNames: "+strings.Join(e.ArtifactNames, ", "), len(missing) == 0, "missing %s; the artifacts are %q", strings.Join(missing, ", "), names)
	}
	if len(e.MediaTypes) > 0 {
		types := ans.mediaTypes()
		missing := missingFrom(types, e.MediaTypes)
		add("mediaTypes: "+strings.Join(e.MediaTypes, ", "), len(missing) == 0, "missing %s; the parts are %q", strings.Join(missing, ", "), types)
	}
	if e.Events != nil {
		add("events: "+e.Events.String(), e.Events.holds(ans.events), "%d events", ans.events)
	}
	if e.FirstEventWithin > 0 {
		add("firstEventWithin: "+e.FirstEventWithin.String(), ans.events > 0 && ans.firstEvent <= e.FirstEventWithin, "first event after %s", ans.firstEvent.Round(time.Millisecond))
	}
	if e.FinalWithin > 0 {
		add("finalWithin: "+e.FinalWithin.String(), took <= e.FinalWithin, "final answer after %s", took.Round(time.Millisecond))
	}
	for _, c := range st.Capture {
		nodes := c.Path.Select(doc)
		if len(nodes) == 0 {
			add("capture "+c.Name, false, "%s selects nothing", c.Path)
			continue
		}
		if s, ok := nodes[0].(string); ok {
			r.vars[c.Name] = s
		} else {
			r.vars[c.Name] = compact(nodes[0])
		}
	}
	return sr
}

// apply folds one event into the answer: a streamed task is put together as the agent's own store
// would (status replaced, artifact chunks appended).
func (a *answer) apply(ev a2a.Event) {
	switch e := ev.(type) {
	case *a2a.Task:
		t := *e
		t.Artifacts = append([]*a2a.Artifact(nil), e.Artifacts...)
		a.task = &t
	case *a2a.Message:
		if a.task == nil {
			a.msg = e
		}
	case *a2a.TaskStatusUpdateEvent:
		a.ensureTask(e.TaskID, e.ContextID)
		a.task.Status = e.Status
	case *a2a.TaskArtifactUpdateEvent:
		a.ensureTask(e.TaskID, e.ContextID)
		if e.Artifact == nil {
			return
		}
		for i, old := range a.task.Artifacts {
			if old.ID != e.Artifact.ID {
				continue
			}
			if e.Append {
				merged := *old
				merged.Parts = append(append(a2a.ContentParts(nil), old.Parts...), e.Artifact.Parts...)
				a.task.Artifacts[i] = &merged
			} else {
				a.task.Artifacts[i] = e.Artifact
			}
			return
		}
		a.task.Artifacts = append(a.task.Artifacts, e.Artifact)
	}
}

func (a *answer) ensureTask(id a2a.TaskID, contextID string) {
	if a.task == nil {
		a.task = &a2a.Task{ID: id, ContextID: contextID}
	}
}

// document is the answer as JSON values (the task, or the message), what JSON paths look at. Its
// shape is a2a-go's v1.0 JSON whatever dialect was spoken: states as "TASK_STATE_COMPLETED".
func (a *answer) document() any {
	var v any
	switch {
	case a.task != nil:
		v = a.task
	case a.msg != nil:
		v = a.msg
	default:
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var doc any
	if json.Unmarshal(b, &doc) != nil {
		return nil
	}
	return doc
}

// text is the agent's reply text: a message's text parts (and text/* files) (one per line), or a task's artifacts'
// text (the parts of one artifact run together, as streamed chunks do; one artifact per line) and
// then its final status message's text. Progress messages in the history are not part of it.
func (a *answer) text() string {
	var lines []string
	if a.msg != nil {
		lines = append(lines, partsText(a.msg.Parts, "\n"))
	}
	if a.task != nil {
		for _, art := range a.task.Artifacts {
			if s := partsText(art.Parts, ""); s != "" {
				lines = append(lines, s)
			}
		}
		if m := a.task.Status.Message; m != nil {
			if s := partsText(m.Parts, "\n"); s != "" {
				lines = append(lines, s)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// data is the answer's data parts (a message's, or a task's artifacts' and final status message's)
// as one JSON list; "" when there are none.
func (a *answer) data() string {
	var values []any
	collect := func(parts a2a.ContentParts) {
		for _, p := range parts {
			if d, ok := p.Content.(a2a.Data); ok {
				values = append(values, d.Value)
			}
		}
	}
	if a.msg != nil {
		collect(a.msg.Parts)
	}
	if a.task != nil {
		for _, art := range a.task.Artifacts {
			collect(art.Parts)
		}
		if m := a.task.Status.Message; m != nil {
			collect(m.Parts)
		}
	}
	if len(values) == 0 {
		return ""
	}
	b, err := json.Marshal(values)
	if err != nil {
		return ""
	}
	return string(b)
}

func partsText(parts a2a.ContentParts, sep string) string {
	var out []string
	for _, p := range parts {
		switch c := p.Content.(type) {
		case a2a.Text:
			out = append(out, string(c))
		case a2a.Raw: // a text file is text too
			if strings.HasPrefix(p.MediaType, "text/") {
				out = append(out, string(c))
			}
		}
	}
	return strings.Join(out, sep)
}

func (a *answer) artifactNames() []string {
	var names []string
	if a.task != nil {
		for _, art := range a.task.Artifacts {
			names = append(names, art.Name)
		}
	}
	return names
}

// mediaTypes lists the media types of the answer's parts (artifacts and messages); a part without
// one counts as text/plain (text) or application/json (data).
func (a *answer) mediaTypes() []string {
	var types []string
	addParts := func(parts a2a.ContentParts) {
		for _, p := range parts {
			mt := p.MediaType
			if mt == "" {
				switch p.Content.(type) {
				case a2a.Text:
					mt = "text/plain"
				case a2a.Data:
					mt = "application/json"
				}
			}
			if mt != "" && !slices.Contains(types, mt) {
				types = append(types, mt)
			}
		}
	}
	if a.msg != nil {
		addParts(a.msg.Parts)
	}
	if a.task != nil {
		for _, art := range a.task.Artifacts {
			addParts(art.Parts)
		}
		if a.task.Status.Message != nil {
			addParts(a.task.Status.Message.Parts)
		}
	}
	return types
}

// missingFrom is what of want has does not hold.
func missingFrom(has, want []string) []string {
	var missing []string
	for _, w := range want {
		if !slices.Contains(has, w) {
			missing = append(missing, w)
		}
	}
	return missing
}

// stateName spells a task state as the file does: TASK_STATE_INPUT_REQUIRED → input-required.
func stateName(s a2a.TaskState) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_")), "_", "-")
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func quoteShort(s string) string {
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
