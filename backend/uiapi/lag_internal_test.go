package uiapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/bus"
)

// A push dropped because the client's queue was full must still reach the client as "lagged" when
// nothing else is pushed after it (the tail of a burst): otherwise the UI never refetches and its
// unread counts stop short.
func TestLaggedReachesTheClientAfterTheLastDroppedPush(t *testing.T) {
	c := &conn{out: make(chan []byte, 1)}
	c.pushFrame(push{Topic: "channel", Data: ChannelUpdate{ChannelID: "c", Sequence: 1}})
	c.pushFrame(push{Topic: "channel", Data: ChannelUpdate{ChannelID: "c", Sequence: 2}}) // no room: dropped
	sub := bus.New().Subscribe(func(bus.Event) bool { return false }, 1)
	go c.forward(t.Context(), sub)

	var got []string
	deadline := time.After(10 * time.Second)
	for len(got) < 2 {
		select {
		case frame := <-c.out:
			var p push
			json.Unmarshal(frame, &p)
			got = append(got, p.Topic)
		case <-deadline:
			t.Fatalf("frames %v: the client was never told it lagged", got)
		}
	}
	if got[0] != "channel" || got[1] != "lagged" {
		t.Fatalf("frames %v: want the pushed event, then lagged", got)
	}
}
