package channels

import (
	"context"
	"encoding/json"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/server"
)

// ExtensionURI names the channels extension in the card's capabilities.extensions.
const ExtensionURI = "https://agenthub.dev/a2a/extensions/channels/v0.1"

// Features are what the card advertises under capabilities.messaging.channels.features.
var Features = []string{"create", "publish", "history", "stream", "membership", "direct", "idempotency", "update", "delete"}

// Methods are the extension's JSON-RPC methods.
func (s *Service) Methods() map[string]server.ExtensionMethod {
	type idParams struct {
		ChannelID string `json:"channelId"`
	}
	type memberParams struct {
		ChannelID   string `json:"channelId"`
		PrincipalID string `json:"principalId"`
		Role        string `json:"role"`
	}
	return map[string]server.ExtensionMethod{
		"channels/create": {Call: unary(func(ctx context.Context, p CreateParams) (any, error) {
			c, err := s.Create(ctx, p)
			return wrap("channel", c, err)
		})},
		"channels/get": {Call: unary(func(ctx context.Context, p idParams) (any, error) {
			if p.ChannelID == "" {
				return nil, invalid("channelId is required")
			}
			c, err := s.Get(ctx, p.ChannelID)
			return wrap("channel", c, err)
		})},
		"channels/list": {Call: unary(func(ctx context.Context, _ struct{}) (any, error) {
			cs, err := s.List(ctx)
			return wrap("channels", cs, err)
		})},
		"channels/update": {Call: unary(func(ctx context.Context, p UpdateParams) (any, error) {
			c, err := s.Update(ctx, p)
			return wrap("channel", c, err)
		})},
		"channels/delete": {Call: unary(func(ctx context.Context, p idParams) (any, error) {
			if p.ChannelID == "" {
				return nil, invalid("channelId is required")
			}
			if err := s.Delete(ctx, p.ChannelID); err != nil {
				return nil, err
			}
			return map[string]any{"deleted": true, "channelId": p.ChannelID}, nil
		})},
		"channels/addMember": {Call: unary(func(ctx context.Context, p memberParams) (any, error) {
			if p.ChannelID == "" {
				return nil, invalid("channelId is required")
			}
			c, err := s.AddMember(ctx, p.ChannelID, p.PrincipalID, p.Role)
			return wrap("channel", c, err)
		})},
		"channels/removeMember": {Call: unary(func(ctx context.Context, p memberParams) (any, error) {
			if p.ChannelID == "" {
				return nil, invalid("channelId is required")
			}
			c, err := s.RemoveMember(ctx, p.ChannelID, p.PrincipalID)
			if err != nil {
				return nil, err
			}
			if c == nil { // the caller removed themselves: they may no longer see it
				return map[string]any{"removed": true}, nil
			}
			return map[string]any{"channel": c}, nil
		})},
		"channels/publish": {Call: unary(func(ctx context.Context, p PublishParams) (any, error) {
			_, raw, err := s.publish(ctx, p)
			if err != nil {
				return nil, err
			}
			// The event as stored: answered without encoding it again.
			return server.RawResult(append(append([]byte(`{"event":`), raw...), '}')), nil
		})},
		"channels/history": {Call: unary(func(ctx context.Context, p HistoryParams) (any, error) {
			page, err := s.History(ctx, p)
			if err != nil {
				return nil, err
			}
			return server.RawResult(page.encode()), nil
		})},
		"channels/stream": {Stream: s.openStream},
	}
}

// Card declares the extension and the spec's capabilities.messaging.channels.
func (s *Service) Card() server.ExtensionCard {
	return server.ExtensionCard{
		Extension: a2a.AgentExtension{URI: ExtensionURI,
			Description: "Durable multi-agent channels: channels/create|get|list|update|delete|addMember|removeMember|publish|history|stream"},
		Capabilities: map[string]any{"messaging": map[string]any{"channels": map[string]any{"version": "0.1", "features": Features}}},
	}
}

// unary decodes params into P (malformed params are InvalidParams) and calls fn.
func unary[P any](fn func(context.Context, P) (any, error)) func(context.Context, json.RawMessage) (any, error) {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, invalid("%v", err)
		}
		return fn(ctx, p)
	}
}

func wrap[T any](key string, v T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return map[string]any{key: v}, nil
}
