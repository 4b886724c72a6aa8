package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	a2alegacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

// JWKSPath is where an agent publishes the public keys its push notifications are signed with, at
// the origin of its endpoint (the hub's own agents serve it there). The draft leaves the place to
// the agent; its samples use this well-known path.
const JWKSPath = "/.well-known/jwks.json"

// PushNotifications reports the card's capabilities.pushNotifications.
func PushNotifications(card []byte) bool { return capability(card, "pushNotifications") }

func capability(card []byte, name string) bool {
	var doc struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(card, &doc) != nil {
		return false
	}
	var on bool
	return json.Unmarshal(doc.Capabilities[name], &on) == nil && on
}

// PushNotifications reports whether the agent's card says it sends push notifications.
func (c *Conn) PushNotifications() bool { return c.push }

// JWKSURL is where the keys that sign the agent's push notifications are: JWKSPath at the origin of
// the endpoint in use.
func (c *Conn) JWKSURL() string {
	u, err := url.Parse(c.Endpoint().URL)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: JWKSPath}).String()
}

// SetPushConfig asks the agent to push the task's updates to webhook, presenting token: v1.0
// CreateTaskPushNotificationConfig, v0.3 tasks/pushNotificationConfig/set, v0.1
// tasks/pushNotification/set.
func (c *Conn) SetPushConfig(ctx context.Context, taskID a2a.TaskID, webhook, token string) error {
	// The endpoint in use only: an agent without the method answers -32601, which here means "no
	// push", not "try another dialect" (moving the Conn would change every later call).
	_, dc := c.current()
	err := dc.SetPush(ctx, &a2a.PushConfig{TaskID: taskID, URL: webhook, Token: token})
	if err != nil && c.masker != nil {
		if m, merr := c.masker(); merr == nil {
			err = maskError(m, err)
		}
	}
	return err
}

// ParsePush reads a push notification's body in the dialect in use: a v1.0 StreamResponse, or the
// whole task in v0.3 and v0.1.
func (c *Conn) ParsePush(body []byte) (a2a.Event, error) {
	_, dc := c.current()
	ev, err := dc.ParsePush(body)
	if err == nil && ev == nil {
		err = fmt.Errorf("%w: a push notification without an event", a2a.ErrInvalidAgentResponse)
	}
	return masked(c, ev, err)
}

func (s *sdkClient) SetPush(ctx context.Context, cfg *a2a.PushConfig) error {
	_, err := s.client.CreateTaskPushConfig(ctx, cfg)
	return err
}

func (s *sdkClient) ParsePush(body []byte) (a2a.Event, error) {
	if s.dialect == V03 {
		var t a2alegacy.Task
		if err := json.Unmarshal(body, &t); err != nil {
			return nil, fmt.Errorf("%w: v0.3 push notification: %v", a2a.ErrInvalidAgentResponse, err)
		}
		return a2av0.ToV1Task(&t)
	}
	var sr a2a.StreamResponse
	if err := json.Unmarshal(body, &sr); err != nil {
		return nil, fmt.Errorf("%w: push notification: %v", a2a.ErrInvalidAgentResponse, err)
	}
	return sr.Event, nil
}
