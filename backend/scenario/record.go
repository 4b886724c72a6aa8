package scenario

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.yaml.in/yaml/v3"

	"github.com/agenthub/agenthub/backend/a2ui"
	"github.com/agenthub/agenthub/backend/chats"
)

// Record turns a stored conversation into a scenario file: a step per message the owner sent (a
// reply when it answered the agent's question in the same task), each expecting what the agent
// answered then (its final state, the start of its reply text, its artifacts' names), or that the
// call failed when it did. agent is what the file names (a card URL, or the added agent's id). The
// expectations are suggestions to edit; the file is checked to load before it is returned.
func Record(c chats.Conversation, entries []chats.Entry, agent string) ([]byte, error) {
	var turns []*recordTurn
	files := 0
	for _, e := range entries {
		switch {
		case e.Direction == chats.Out:
			msg, ok := e.Event.(*a2a.Message)
			if !ok {
				continue
			}
			t := &recordTurn{}
			t.step.Name = fmt.Sprintf("entry %d", e.Seq)
			var lines []string
			for _, p := range msg.Parts {
				switch c := p.Content.(type) {
				case a2a.Text:
					lines = append(lines, string(c))
				case a2a.Data:
					if a2ui.IsPart(p) {
						// a v0.9 part holds a list; each v0.8 message comes in a part of its own
						for _, m := range a2ui.Messages(p) {
							t.step.A2UI = append(t.step.A2UI, m)
						}
					} else if t.step.Data == nil {
						t.step.Data = c.Value
					}
				case a2a.Raw:
					if f, ok := recordFile(p, c); ok {
						t.step.Files = append(t.step.Files, f)
					} else {
						files++
					}
				case a2a.URL:
					files++
				}
			}
			text := strings.Join(lines, "\n")
			if strings.Contains(text, "${") || (t.step.A2UI != nil && strings.Contains(fmt.Sprint(t.step.A2UI), "${")) {
				return nil, fmt.Errorf("entry %d: it holds ${, which a scenario reads as a variable", e.Seq)
			}
			prev := last(turns)
			if prev != nil && msg.TaskID != "" && prev.answer.task != nil && prev.answer.task.ID == msg.TaskID {
				t.step.Reply = text
				// An action names a surface by the task it was drawn in (the demo agent's do): the
				// replay's task has another id, so the name is made from the one captured then.
				if t.step.A2UI != nil && strings.Contains(fmt.Sprint(t.step.A2UI), string(msg.TaskID)) {
					name := fmt.Sprintf("task%d", len(turns))
					if prev.step.Capture == nil {
						prev.step.Capture = map[string]string{}
					}
					prev.step.Capture[name] = "$.id"
					t.step.A2UI = mapStrings(t.step.A2UI, func(s string) string {
						return strings.ReplaceAll(s, string(msg.TaskID), "${"+name+"}")
					}).([]any)
				}
			} else {
				t.step.Send = text
			}
			if t.step.Reply == "" && t.step.Send == "" && t.step.Data == nil && t.step.A2UI == nil && len(t.step.Files) == 0 {
				continue // nothing a scenario can send (a file by URL, or too large to record)
			}
			turns = append(turns, t)
		case e.Direction == chats.Local && e.Error != nil:
			if t := last(turns); t != nil {
				t.failed = true
			}
		case e.Direction == chats.In && e.Event != nil:
			if t := last(turns); t != nil {
				t.answer.apply(e.Event)
			}
		}
	}
	if len(turns) == 0 {
		return nil, fmt.Errorf("conversation %s has no message a scenario can send", c.ID)
	}
	file := recorded{Name: c.Title, Agent: agent}
	if file.Name == "" {
		file.Name = "conversation " + c.ID
	}
	for _, t := range turns {
		t.step.Expect = t.expect()
		file.Steps = append(file.Steps, t.step)
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "# Recorded by agenthub scenario record from conversation %s (%s).\n", c.ID, c.UpdatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&out, "# The expectations are what the agent answered then: edit them to what must hold.\n")
	if files > 0 {
		fmt.Fprintf(&out, "# The conversation sent %d file(s) by URL or over %d KiB, which are not recorded.\n", files, recordedFileMax>>10)
	}
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(file); err != nil {
		return nil, err
	}
	if _, err := Parse(c.ID+".yaml", out.Bytes()); err != nil {
		return nil, fmt.Errorf("the recorded scenario does not load: %w", err)
	}
	return out.Bytes(), nil
}

// recorded is a scenario file as Record writes it (the fields in the order a person reads them).
type recorded struct {
	Name  string         `yaml:"name"`
	Agent string         `yaml:"agent"`
	Steps []recordedStep `yaml:"steps"`
}

type recordedStep struct {
	Name    string            `yaml:"name"`
	Send    string            `yaml:"send,omitempty"`
	Reply   string            `yaml:"reply,omitempty"`
	Data    any               `yaml:"data,omitempty"`
	Files   []recordedFile    `yaml:"files,omitempty"`
	A2UI    []any             `yaml:"a2ui,omitempty"`
	Expect  map[string]any    `yaml:"expect,omitempty"`
	Capture map[string]string `yaml:"capture,omitempty"`
}

type recordedFile struct {
	Name      string `yaml:"name"`
	MediaType string `yaml:"mediaType,omitempty"`
	Text      string `yaml:"text,omitempty"`
	Base64    string `yaml:"base64,omitempty"`
}

// recordedFileMax bounds a file a recorded scenario carries inline.
const recordedFileMax = 64 << 10

// recordFile is a file part as a recorded step's file: text when it is UTF-8 text, else base64;
// false for one too large (or empty) to carry in a scenario file.
func recordFile(p *a2a.Part, raw a2a.Raw) (recordedFile, bool) {
	if len(raw) == 0 || len(raw) > recordedFileMax {
		return recordedFile{}, false
	}
	f := recordedFile{Name: p.Filename, MediaType: p.MediaType}
	if f.Name == "" {
		f.Name = "file"
	}
	if utf8.Valid(raw) && (strings.HasPrefix(p.MediaType, "text/") || p.MediaType == "application/json") {
		f.Text = string(raw)
	} else {
		f.Base64 = base64.StdEncoding.EncodeToString(raw)
	}
	return f, true
}

func last[T any](list []*T) *T {
	if len(list) == 0 {
		return nil
	}
	return list[len(list)-1]
}

// recordedText bounds the reply text a recorded step expects: its start, enough to tell a changed
// answer, short enough to read.
const recordedText = 80

// recordTurn is a message the owner sent and what came of it.
type recordTurn struct {
	step   recordedStep
	answer answer
	failed bool // the call failed (the hub noted an error)
}

// expect is what a recorded turn suggests: the call failed, or the answer's state, the start of its
// text and its artifacts' names.
func (t *recordTurn) expect() map[string]any {
	if t.failed {
		return map[string]any{"noError": false}
	}
	ex := map[string]any{}
	switch {
	case t.answer.task != nil && t.answer.task.Status.State != "":
		ex["state"] = stateName(t.answer.task.Status.State)
	case t.answer.msg != nil:
		ex["state"] = "message"
	}
	if text, _, _ := strings.Cut(strings.TrimSpace(t.answer.text()), "\n"); text != "" && !strings.Contains(text, "${") {
		if r := []rune(text); len(r) > recordedText {
			text = string(r[:recordedText])
			if i := strings.LastIndexByte(text, ' '); i > recordedText/2 {
				text = text[:i]
			}
		}
		ex["textContains"] = text
	}
	var names []string
	for _, n := range t.answer.artifactNames() {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		ex["artifactNames"] = names
	}
	return ex
}
