// Package bus is the hub's one in-process event bus. Every change (task event, and later channel
// events, knowledge-graph changes, agent status) is published here after it is durably stored;
// SSE streams, the UI websocket, push delivery and the channel bridge subscribe.
//
// Publish never blocks: a subscriber that falls behind loses events and is told so on Lagged, and
// catches up from the durable log it subscribed to (every published event carries its log sequence).
package bus

import "sync"

// Event is one published change. Source names who published it (an agent on this hub: "hub",
// "demo"), Key scopes it within the topic (a task id, a channel id); Seq is its position in the
// durable log of that key.
type Event struct {
	Topic  string
	Source string
	Key    string
	Seq    int64
	Data   any
}

// Bus fans events out to subscribers.
type Bus struct {
	mu   sync.RWMutex
	subs map[*Subscription]struct{}
}

// New returns an empty bus.
func New() *Bus { return &Bus{subs: map[*Subscription]struct{}{}} }

// Subscription receives the events its filter accepts.
type Subscription struct {
	C      <-chan Event
	Lagged <-chan struct{} // signalled when an event was dropped because C was full

	c      chan Event
	lagged chan struct{}
	match  func(Event) bool
	bus    *Bus
}

// Subscribe registers a subscriber with room for buffer pending events.
func (b *Bus) Subscribe(match func(Event) bool, buffer int) *Subscription {
	s := &Subscription{c: make(chan Event, buffer), lagged: make(chan struct{}, 1), match: match, bus: b}
	s.C, s.Lagged = s.c, s.lagged
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

// Close unregisters the subscription.
func (s *Subscription) Close() {
	s.bus.mu.Lock()
	delete(s.bus.subs, s)
	s.bus.mu.Unlock()
}

// Publish delivers e to every matching subscriber without blocking.
func (b *Bus) Publish(e Event) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	for s := range b.subs {
		if !s.match(e) {
			continue
		}
		select {
		case s.c <- e:
		default:
			select {
			case s.lagged <- struct{}{}:
			default:
			}
		}
	}
}
