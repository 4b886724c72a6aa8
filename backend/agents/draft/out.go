package draft

import (
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/a2a01"
)

// What the hub sends in the v0.1 draft: its own a2a-go messages in the draft's shapes (a2a01, the
// same the hub's server writes).

// outPart is a part as the hub sends it in v0.1. A text part carries its text twice, as the draft's
// "text" and AgentVault's "content": each reader ignores the field it does not know.
type outPart struct {
	a2a01.Part
	Content *string `json:"content,omitempty"`
}

type outMessage struct {
	Role     string         `json:"role"`
	Parts    []outPart      `json:"parts"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

func toWireMessage(m *a2a.Message) (outMessage, error) {
	var parts []*a2a.Part
	for i, p := range m.Parts {
		if p == nil {
			continue
		}
		switch p.Content.(type) {
		case a2a.Text, a2a.Raw, a2a.URL, a2a.Data:
			parts = append(parts, p)
		default:
			return outMessage{}, fmt.Errorf("%w: parts[%d] has no content the v0.1 draft can carry", a2a.ErrInvalidParams, i)
		}
	}
	out := outMessage{Role: "user", Parts: []outPart{}, Metadata: m.Metadata}
	if m.Role == a2a.MessageRoleAgent {
		out.Role = "agent"
	}
	for _, p := range a2a01.FromV1Parts(parts) {
		o := outPart{Part: p}
		if p.Type == "text" {
			o.Content = p.Text
		}
		out.Parts = append(out.Parts, o)
	}
	return out, nil
}
