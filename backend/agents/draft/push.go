package draft

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// draftPushParams is the draft's TaskPushNotificationConfig.
type draftPushParams struct {
	ID     string `json:"id"`
	Config struct {
		URL   string `json:"url"`
		Token string `json:"token,omitempty"`
	} `json:"pushNotificationConfig"`
}

// SetPush is tasks/pushNotification/set.
func (d *Client) SetPush(ctx context.Context, cfg *a2a.PushConfig) error {
	p := draftPushParams{ID: string(cfg.TaskID)}
	p.Config.URL, p.Config.Token = cfg.URL, cfg.Token
	_, err := d.call(ctx, "tasks/pushNotification/set", p)
	return err
}

// ParsePush reads a v0.1 push notification: the whole task.
func (d *Client) ParsePush(body []byte) (a2a.Event, error) {
	var t wireTask
	if err := json.Unmarshal(body, &t); err != nil {
		return nil, fmt.Errorf("%w: v0.1 push notification: %v", a2a.ErrInvalidAgentResponse, err)
	}
	return d.task(&t, d.sessions.get(t.ID))
}
