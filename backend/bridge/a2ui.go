package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/a2a01"
	"github.com/agenthub/agenthub/backend/a2ui"
	"github.com/agenthub/agenthub/backend/channels"
)

// A2UI (a2ui-project/a2ui) in channels. An added agent's surface is published into the channel like
// the rest of its answer, so every member sees it; what a person does with it (an action) goes back
// through Act to that agent only, in the task that drew it, with the surface's data model.
//
// Channel events carry the v0.1 draft's parts, whose data is an object: an A2UI part (a data part
// whose data is a list of A2UI messages) becomes one data part per message, in order, each marked
// with metadata.mimeType, which is how the A2UI extension carries its messages in object-only data
// parts. A client of another hub sees plain draft data parts; the hub's UI gathers them again.

// channelParts converts an agent's parts to the channel's draft shapes, keeping data parts' media type
// (metadata.mimeType, the draft having no field for it) and splitting A2UI lists.
func channelParts(parts []*a2a.Part) []json.RawMessage {
	var out []json.RawMessage
	add := func(p a2a01.Part) {
		if j, err := json.Marshal(p); err == nil {
			out = append(out, j)
		}
	}
	for _, p := range parts {
		d, ok := p.Content.(a2a.Data)
		if !ok {
			for _, c := range a2a01.FromV1Parts([]*a2a.Part{p}) {
				add(c)
			}
			continue
		}
		meta := maps.Clone(p.Metadata)
		mt := p.MediaType
		if mt == "" {
			mt, _ = meta["mimeType"].(string)
		}
		if mt != "" {
			if meta == nil {
				meta = map[string]any{}
			}
			meta["mimeType"] = mt
		}
		if list, isList := d.Value.([]any); isList && a2ui.IsPart(p) {
			for _, m := range list {
				if obj, ok := m.(map[string]any); ok { // not an A2UI message otherwise: nothing renders it
					add(a2a01.Part{Type: "data", Data: obj, Metadata: meta})
				}
			}
			continue
		}
		for _, c := range a2a01.FromV1Parts([]*a2a.Part{p}) {
			c.Metadata = meta
			add(c)
		}
	}
	return out
}

// a2uiMessagesOf are the A2UI messages of a channel event's parts, in order: draft data parts
// marked application/a2ui+json (or the legacy spelling) in metadata.mimeType, each one message (or a
// list of them), and the v0.3/v1.0 shape (kind "data", mediaType) that other hubs' clients may write.
func a2uiMessagesOf(parts []json.RawMessage) []any {
	var out []any
	for _, raw := range parts {
		var p struct {
			Type      string          `json:"type"`
			Kind      string          `json:"kind"`
			Data      json.RawMessage `json:"data"`
			MediaType string          `json:"mediaType"`
			Metadata  struct {
				MimeType string `json:"mimeType"`
			} `json:"metadata"`
		}
		if json.Unmarshal(raw, &p) != nil || (p.Type != "data" && p.Kind != "data") {
			continue
		}
		mt := p.MediaType
		if mt == "" {
			mt = p.Metadata.MimeType
		}
		if mt != a2ui.MediaType && mt != a2ui.LegacyMediaType {
			continue
		}
		var v any
		if json.Unmarshal(p.Data, &v) != nil {
			continue
		}
		switch d := v.(type) {
		case map[string]any:
			out = append(out, d)
		case []any:
			out = append(out, d...)
		}
	}
	return out
}

// Action is what a person did with an agent's surface in a channel (bridge.act).
type Action struct {
	ChannelID string
	Member    string // remote://AGENT-ID: the agent that drew the surface
	TaskID    string // the task whose answer drew it
	// Messages are A2UI v0.9 actions or errors about surfaces the agent drew in that task.
	Messages []any
	// DataModel, when not nil, is the a2uiClientDataModel of those surfaces (sendDataModel).
	DataModel map[string]any
}

// ActionMeta is metadata.agenthub.a2uiAction of the event that shows a person's action in the
// channel: which agent and task it went to. The bridge never forwards such an event by mentions.
type ActionMeta struct {
	Member    string `json:"member"`
	TaskID    string `json:"taskId"`
	SurfaceID string `json:"surfaceId"`
}

// surfacesDrawn are the ids of the surfaces the agent created in the channel in the task, from its
// events there (only the bridge publishes as remote://…, so their metadata can be trusted).
func (b *Bridge) surfacesDrawn(ctx context.Context, channelID, member, taskID string) (a2ui.Created, error) {
	created := a2ui.Created{}
	token := ""
	for {
		page, err := b.cfg.Channels.History(ctx, channels.HistoryParams{ChannelID: channelID, PageSize: 200, PageToken: token, AuthorIDs: []string{member}})
		if err != nil {
			return nil, err
		}
		for _, raw := range page.Events {
			var ev channels.MessageEvent
			if json.Unmarshal(raw, &ev) != nil || ev.Author != member {
				continue
			}
			if m := metaOf(&ev); m == nil || m.TaskID != taskID {
				continue
			}
			part := a2ui.NewPart(a2uiMessagesOf(ev.Parts))
			a2ui.AddCreated(created, a2a.ContentParts{part})
		}
		if page.NextPageToken == "" || len(page.Events) == 0 {
			return created, nil
		}
		token = page.NextPageToken
	}
}

// Act sends a person's A2UI action (or error) about a surface an added agent drew in the channel to
// that agent only, in the task that drew it, with the surface's data model; and shows in the channel,
// as the caller (in ctx, who must be able to publish there), what they chose. The agent's answer (an
// updated surface, most often) comes back into the channel like any answer. It is refused
// (a2ui.ErrRefused, ErrNotDeliverable) for a surface that agent did not draw in that task here.
func (b *Bridge) Act(ctx context.Context, a Action) (*channels.MessageEvent, error) {
	agentID, ok := strings.CutPrefix(a.Member, remotePrefix)
	if !ok || agentID == "" {
		return nil, fmt.Errorf("%w: %s", ErrNotDeliverable, a.Member+" is not an added agent (remote://AGENT-ID)")
	}
	if a.TaskID == "" || len(a.Messages) == 0 {
		return nil, fmt.Errorf("%w: an action needs the task that drew the surface and at least one message", a2ui.ErrRefused)
	}
	c, err := b.cfg.Channels.Get(ctx, a.ChannelID) // the caller's right to the channel
	if err != nil {
		return nil, err
	}
	isMember := false
	for _, m := range c.Members {
		isMember = isMember || m.PrincipalID == a.Member
	}
	if !isMember {
		return nil, fmt.Errorf("%w: %s", ErrNotDeliverable, a.Member+" is not a member of the channel")
	}
	created, err := b.surfacesDrawn(ctx, a.ChannelID, a.Member, a.TaskID)
	if err != nil {
		return nil, err
	}
	if err := a2ui.CheckClient(a.Messages, a.DataModel, created); err != nil {
		return nil, err
	}
	surface := ""
	if obj, _ := a.Messages[0].(map[string]any); obj != nil {
		surface, _ = bodyOf(obj)["surfaceId"].(string)
	}
	text, _ := json.Marshal(a2a01.Part{Type: "text", Text: ptr(describeAction(a.Messages))})
	meta := ActionMeta{Member: a.Member, TaskID: a.TaskID, SurfaceID: surface}
	ev, err := b.cfg.Channels.Publish(ctx, channels.PublishParams{ChannelID: a.ChannelID, Parts: []json.RawMessage{text},
		Metadata: map[string]any{"agenthub": map[string]any{"a2uiAction": meta}}})
	if err != nil {
		return nil, err
	}
	b.enqueue(key{a.ChannelID, agentID}, job{event: ev, text: describeAction(a.Messages), origin: ev.ID,
		a2ui: a.Messages, dataModel: a.DataModel, task: a.TaskID})
	return ev, nil
}

func ptr[T any](v T) *T { return &v }

// describeAction is the channel's line for an action, after the author's name: "chose plan release
// (version: 2.0 · channel: beta)", as a chat's transcript says it.
func describeAction(messages []any) string {
	obj, _ := messages[0].(map[string]any)
	act, _ := obj["action"].(map[string]any)
	if act == nil {
		act, _ = obj["userAction"].(map[string]any) // v0.8
	}
	if act == nil {
		return "reported a problem with a form"
	}
	name, _ := act["name"].(string)
	name = strings.NewReplacer("_", " ", "-", " ").Replace(name)
	if name == "" {
		name = "an action"
	}
	var values []string
	ctxv, _ := act["context"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(ctxv)) {
		v := ctxv[k]
		var s string
		switch x := v.(type) {
		case nil:
		case string:
			s = x
		case []any:
			var parts []string
			for _, e := range x {
				parts = append(parts, fmt.Sprint(e))
			}
			s = strings.Join(parts, ", ")
		default:
			j, _ := json.Marshal(x)
			s = string(j)
		}
		if s != "" {
			values = append(values, k+": "+s)
		}
	}
	text := "chose " + name
	if len(values) > 0 {
		text += " (" + strings.Join(values, " · ") + ")"
	}
	if r := []rune(text); len(r) > 240 {
		text = string(r[:239]) + "…"
	}
	return text
}

// bodyOf is the body of a client message: a v0.9 action, a v0.8 userAction, or an error.
func bodyOf(m map[string]any) map[string]any {
	for _, k := range []string{"action", "userAction", "error"} {
		if body, ok := m[k].(map[string]any); ok {
			return body
		}
	}
	return nil
}

// actionOf reports an event that shows a person's A2UI action: it was sent by Act, never by mentions.
func actionOf(ev *channels.MessageEvent) bool {
	hub, _ := ev.Metadata["agenthub"].(map[string]any)
	_, ok := hub["a2uiAction"]
	return ok
}

// IsRefused reports an action Act refused for what it is (not the channel's access).
func IsRefused(err error) bool {
	return errors.Is(err, a2ui.ErrRefused) || errors.Is(err, ErrNotDeliverable)
}
