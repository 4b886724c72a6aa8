package bridge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/agenthub/agenthub/backend/channels"
)

// ErrNotDeliverable is Deliver's answer for a message it may not send: not a person's message, not
// one that mentions the agent, or an agent that is not a member (yet).
var ErrNotDeliverable = errors.New("not sent to the agent")

// Deliver sends the channel's message at sequence to the added agent principal (remote://AGENT-ID), a member, as if
// the agent had been a member when it was written: the message must be a person's (or any author that
// is not an added agent) and mention the agent. It is how a mention of an agent outside the channel
// reaches it once the owner adds it (Slack's "Add them to #channel?"): the bridge only acts on new
// events, and publishing the message again would show it twice. The caller (in ctx) must be able to
// see the channel; each call sends once more, as a new mention would.
func (b *Bridge) Deliver(ctx context.Context, channelID string, sequence int64, principal string) error {
	agentID, ok := strings.CutPrefix(principal, remotePrefix)
	if !ok || agentID == "" {
		return fmt.Errorf("%w: %s", ErrNotDeliverable, principal+" is not an added agent (remote://AGENT-ID)")
	}
	c, err := b.cfg.Channels.Get(ctx, channelID) // the caller's right to the channel
	if err != nil {
		return err
	}
	isMember := false
	for _, m := range c.Members {
		isMember = isMember || m.PrincipalID == principal
	}
	if !isMember {
		return fmt.Errorf("%w: %s", ErrNotDeliverable, principal+" is not a member of the channel")
	}
	events, err := b.cfg.Channels.EventsAfter(ctx, channelID, sequence-1, 1)
	if err != nil {
		return err
	}
	if len(events) == 0 || events[0].Sequence != sequence {
		return &channels.Error{Code: channels.CodeChannelNotFound, Message: "no event with that sequence in the channel"}
	}
	ev := events[0]
	if strings.HasPrefix(ev.Author, remotePrefix) {
		return fmt.Errorf("%w: %s", ErrNotDeliverable, "an agent's answer is forwarded by its mentions only")
	}
	a := member{id: agentID}
	if b.cfg.Name != nil {
		a.slug = Slug(b.cfg.Name(ctx, agentID))
	}
	text := eventText(ev)
	if len(mentioned(text, []member{a}, "", true)) == 0 {
		return fmt.Errorf("%w: %s", ErrNotDeliverable, "the message does not mention "+principal)
	}
	// A person's own send, counted in the message's chain as handle counts it, so the answers it
	// leads to stay within the chain's forward budget.
	if err := b.cfg.DB.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO bridge_chains(origin_id, forwards, stopped) VALUES (?, 1, 0)
			ON CONFLICT(origin_id) DO UPDATE SET forwards = bridge_chains.forwards + 1`, ev.ID)
		return err
	}); err != nil {
		return err
	}
	b.enqueue(key{channelID, agentID}, job{event: ev, text: addressed(text), origin: ev.ID, answer: true})
	return nil
}
