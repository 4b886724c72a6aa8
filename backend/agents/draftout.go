package agents

import (
	"encoding/base64"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// What the hub sends in the v0.1 draft: its own a2a-go messages in the draft's shapes.

// outPart is a part as the hub sends it in v0.1. A text part carries its text twice, as the draft's
// "text" and AgentVault's "content": each reader ignores the field it does not know.
type outPart struct {
	Type     string         `json:"type"`
	Text     *string        `json:"text,omitempty"`
	Content  *string        `json:"content,omitempty"`
	File     *wireFile      `json:"file,omitempty"`
	Data     any            `json:"data,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type outMessage struct {
	Role     string         `json:"role"`
	Parts    []outPart      `json:"parts"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

func toWireMessage(m *a2a.Message) (outMessage, error) {
	out := outMessage{Role: "user", Parts: []outPart{}, Metadata: m.Metadata}
	if m.Role == a2a.MessageRoleAgent {
		out.Role = "agent"
	}
	for i, p := range m.Parts {
		if p == nil {
			continue
		}
		o := outPart{Metadata: p.Metadata}
		switch c := p.Content.(type) {
		case a2a.Text:
			s := string(c)
			o.Type, o.Text, o.Content = "text", &s, &s
		case a2a.Raw:
			o.Type, o.File = "file", &wireFile{Name: p.Filename, MimeType: p.MediaType, Bytes: base64.StdEncoding.EncodeToString(c)}
		case a2a.URL:
			o.Type, o.File = "file", &wireFile{Name: p.Filename, MimeType: p.MediaType, URI: string(c)}
		case a2a.Data:
			o.Type = "data"
			if obj, ok := c.Value.(map[string]any); ok {
				o.Data = obj
			} else {
				o.Data = map[string]any{"value": c.Value} // the draft's data is always an object
			}
		default:
			return outMessage{}, fmt.Errorf("%w: parts[%d] has no content the v0.1 draft can carry", a2a.ErrInvalidParams, i)
		}
		out.Parts = append(out.Parts, o)
	}
	return out, nil
}
