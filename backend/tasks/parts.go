package tasks

import (
	"encoding/json"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// CheckMessage refuses, with a2a.ErrInvalidParams, a message holding a part that would not read back
// once stored, or that a copy through encoding/gob (a2a-go's, wherever its code copies a task) would
// change: gob turns an empty byte slice or an empty list into nil, so an empty file ({"raw":""}) was
// written as {"raw":null} and an empty data list as {"data":null}, which a2a-go's own JSON reader
// refuses (a part must hold exactly one of text, raw, data, url). One such row used to make every
// task list fail. The words are neutral (file, data, part) because every dialect's send ends up here.
func CheckMessage(m *a2a.Message) error {
	if m == nil {
		return nil // the SDK reports a missing message itself
	}
	return CheckParts("message", m.Parts)
}

// CheckParts is CheckMessage for a list of parts; where names it in the error ("message", "artifact").
func CheckParts(where string, parts []*a2a.Part) error {
	for i, p := range parts {
		if err := checkPart(p); err != nil {
			return fmt.Errorf("%s.parts[%d] %s: %w", where, i, err, a2a.ErrInvalidParams)
		}
	}
	return nil
}

func checkPart(p *a2a.Part) error {
	if p == nil {
		return fmt.Errorf("is null; a part holds text, a file or data")
	}
	switch c := p.Content.(type) {
	case a2a.Text:
		return nil
	case a2a.Raw:
		if len(c) == 0 {
			return fmt.Errorf("is an empty file (0 bytes); A2A cannot carry an empty inline file, send at least one byte or a URL")
		}
	case a2a.URL:
		if c == "" {
			return fmt.Errorf("is a file with an empty URL")
		}
	case a2a.Data:
		// Judged by the JSON it stores, so a typed nil map or an empty slice of any type counts too.
		b, err := json.Marshal(c.Value)
		switch {
		case err != nil:
			return fmt.Errorf("holds data that is not JSON: %v", err)
		case string(b) == "null":
			return fmt.Errorf("holds null data")
		case string(b) == "[]":
			return fmt.Errorf("holds an empty data list, which cannot be stored; send an object")
		}
	default:
		return fmt.Errorf("has no content; a part holds text, a file or data")
	}
	return nil
}

// readsBack is the store's last line of defence: a task is written only if its JSON reads back as a
// task, so no request can leave a row that every later reader chokes on.
func readsBack(body []byte, into any) error {
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("it would not read back once stored (%v): %w", err, a2a.ErrInvalidParams)
	}
	return nil
}
