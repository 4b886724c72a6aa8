// Package bridge brings plain A2A agents into channels. An agent the owner added (any dialect the hub
// speaks) is a channel member under the principal remote://AGENT-ID. A channel message that
// @mentions it (or @all) is sent to it over A2A, in one context per channel and agent so it keeps the
// thread, and what it answers is published back into the channel as that member: a streamed answer
// gathered into one event per message or artifact, an input-required question like an answer (the
// next message of a person that mentions the agent answers it). Agents that mention each other chain
// until a hop limit.
//
// The bridge is a subscriber of the bus like every other: it reacts to the channel events the
// channels service publishes, whoever published them (over JSON-RPC, from the UI, or the bridge
// itself). Its tables (the contexts, the task in hand, how far it has read each channel) are its own.
package bridge

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/uuid"

	"github.com/agenthub/agenthub/backend/a2a01"
	"github.com/agenthub/agenthub/backend/a2ui"
	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/tasks"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Topic is the bus topic of a bridged agent's working state in a channel: Key is the channel id,
// Data a *State.
const Topic = "bridge"

// DefaultHops is how many times agents' answers are forwarded to other agents they mention, one
// after another, before the chain stops.
const DefaultHops = 3

// DefaultForwards is how many messages to agents one message of a person (or any author that is
// not an added agent) may lead to in all, its own sends included: 16 lets a person's @all in a
// room of four agents reach the four, and each answer reach the three others once (4 + 12), while
// the room's chain stays linear in its size instead of growing by a power of the hop limit
// (4 + 12 + 36 + 108 sends before). A person's own sends are always made, even beyond it.
const DefaultForwards = 16

// States of a bridged agent in a channel.
const (
	StateIdle          = "idle"
	StateWorking       = "working"
	StateInputRequired = "input-required"
	StateFailed        = "failed"
)

// Notice states: metadata.agenthub.bridge.state of the bridge's own notices, which are never
// forwarded.
const (
	NoticeHopLimit     = "hop-limit"
	NoticeForwardLimit = "forward-limit"
	NoticeFailed       = "failed"
)

const remotePrefix = "remote://"

// State is a bridged agent's working state in a channel, as bridge.states lists it and the bridge
// topic pushes it.
type State struct {
	ChannelID string `json:"channelId"`
	Member    string `json:"member"`
	AgentID   string `json:"agentId"`
	State     string `json:"state"`
	TaskID    string `json:"taskId,omitempty"`
	// TaskState is the A2A state ("completed", "rejected", …) of the task the agent last had in hand,
	// so the channel says what the Tasks list says ("rejected", not only "failed").
	TaskState string `json:"taskState,omitempty"`
	UpdatedAt int64  `json:"updatedAt"`
}

// Meta is metadata.agenthub.bridge of every event the bridge publishes.
type Meta struct {
	TaskID string `json:"taskId"`
	State  string `json:"state"`
	Hop    int    `json:"hop"`
	// Origin is the id of the message of a person (or other author that is not an added agent)
	// the chain of answers began with: forwards are counted against its budget.
	Origin string `json:"origin,omitempty"`
}

// Reply is metadata.agenthub.replyTo of a message of a person (or any author that is not an added
// agent) that answers an agent's question: the message goes to that agent member, mentioned or not,
// and answers its open task when TaskID is the task that asks (the UI's "Answer" sets it, so an
// answer never depends on a typed @mention). A TaskID that is no longer the one asking (answered
// already, or a newer question) sends it as a new message in the agent's context instead.
type Reply struct {
	Member string `json:"member"` // remote://AGENT-ID
	TaskID string `json:"taskId"`
}

// Config configures Open.
type Config struct {
	DB       *store.DB
	Bus      *bus.Bus
	Channels *channels.Service
	// Dial opens the connection to an added agent (agents.Clients.Conn), as conversations do.
	Dial chats.Dialer
	// Classify says in a few words why a call failed (nil: the error's text).
	Classify func(error) string
	// Name is an added agent's name, which mentions may use as a slug (nil, or "": by id only).
	Name func(ctx context.Context, agentID string) string
	// Hops is the hop limit (0: DefaultHops).
	Hops int
	// Forwards is the budget of messages to agents per originating message (0: DefaultForwards).
	Forwards int
	// Poll is the first interval of tasks/get for agents that don't stream (0: a second).
	Poll   time.Duration
	Logger *slog.Logger
}

// Bridge forwards channel messages to the added agents they mention and publishes their answers.
type Bridge struct {
	cfg   Config
	now   func() time.Time
	owner string        // this replica's id in bridge_contexts.leased_by: random on PostgreSQL, "" on SQLite
	lease time.Duration // of the work in hand (PostgreSQL), renewed every third of it

	ctx    context.Context // ends at Close; calls to agents run under it
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sub    *bus.Subscription

	mu      sync.Mutex
	queues  map[key]*queue // one worker per channel and agent: its messages go one after another
	seen    map[string]int64
	handled map[string]int64 // the newest event of each channel whose jobs are queued (see Settled)
}

type key struct{ channel, agent string }

type queue struct{ jobs []job }

// job is one message for one agent.
type job struct {
	event  *channels.MessageEvent
	text   string
	hop    int
	origin string // the id of the message the chain began with (Meta.Origin)
	answer bool   // from a person or member, not an agent: it may answer the agent's open question
	// replyTo, when set, is the task the message answers (Reply.TaskID): only that task, if it still asks.
	replyTo string
	// resume, instead of a message to send, is a task that was still working when the hub stopped:
	// it is watched again.
	resume string
	// a2ui, when set, is a person's A2UI action (Act): sent as the message's one part, in task, with
	// dataModel as its a2uiClientDataModel, instead of text.
	a2ui      []any
	dataModel map[string]any
	task      string
}

// Open migrates the bridge's tables. Start begins bridging.
func Open(ctx context.Context, cfg Config) (*Bridge, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := cfg.DB.Migrate(ctx, "bridge", sub); err != nil {
		return nil, err
	}
	if cfg.Hops <= 0 {
		cfg.Hops = DefaultHops
	}
	if cfg.Forwards <= 0 {
		cfg.Forwards = DefaultForwards
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Classify == nil {
		cfg.Classify = func(err error) string { return err.Error() }
	}
	if cfg.DB.Postgres() {
		if _, err := cfg.DB.Writer.ExecContext(ctx, `DELETE FROM bridge_claims WHERE claimed_at < ?`,
			time.Now().Add(-keepClaims).UnixMilli()); err != nil {
			return nil, err
		}
	}
	life, cancel := context.WithCancel(context.Background())
	b := &Bridge{cfg: cfg, now: time.Now, lease: defaultLease, ctx: life, cancel: cancel, queues: map[key]*queue{}, seen: map[string]int64{}, handled: map[string]int64{}}
	if cfg.DB.Postgres() {
		b.owner = uuid.NewString()
	}
	return b, nil
}

// defaultLease is how long an agent's work in hand stays with a replica that stopped renewing it
// (PostgreSQL) before another replica takes it over.
const defaultLease = time.Minute

// keepClaims is how long an event's claim is kept (PostgreSQL: see handle).
const keepClaims = 24 * time.Hour

// Hops is the hop limit in force.
func (b *Bridge) Hops() int { return b.cfg.Hops }

// Forwards is the forward budget per originating message in force.
func (b *Bridge) Forwards() int { return b.cfg.Forwards }

// Start subscribes to the channels' events, catches up on those stored after the bridge last acted
// (published while it was not running), and watches again the tasks still working when the hub
// stopped. Their answers are published as they come.
func (b *Bridge) Start(ctx context.Context) error {
	b.sub = b.cfg.Bus.Subscribe(func(e bus.Event) bool { return e.Topic == channels.Topic }, subBuffer)
	rows, err := b.cfg.DB.Reader.QueryContext(ctx, `SELECT channel_id, sequence FROM bridge_cursors`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id string
		var seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			rows.Close()
			return err
		}
		b.seen[id] = seq
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	open, err := b.working(ctx)
	if err != nil {
		return err
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		b.resume(open)
		b.catchUp()
		b.loop()
	}()
	if b.owner != "" {
		b.wg.Add(1)
		go b.keepLeases()
	}
	return nil
}

// resume takes up the work in hand that a bridge left (stopped, or on PostgreSQL a replica that
// stopped renewing its leases): a task is watched again; a message sent before the agent named a
// task is reported interrupted, not sent again.
func (b *Bridge) resume(open []openTask) {
	for _, o := range open {
		if o.taskID == "" {
			// The message may or may not have reached the agent; sending it again could do
			// twice what it asks, so the owner decides.
			out := &answer{b: b, k: o.key, hop: o.hop, origin: o.origin, state: StateWorking}
			b.publish(o.agent, o.channel, "Interrupted: the hub stopped before the agent answered. Mention it again to send your message again.",
				out.meta(NoticeFailed), "")
			out.set(StateFailed, false)
			continue
		}
		b.enqueue(o.key, job{hop: o.hop, origin: o.origin, resume: o.taskID})
	}
}

// keepLeases (PostgreSQL) renews this replica's leases on its work in hand every third of the lease,
// and takes over the work of replicas whose leases ran out.
func (b *Bridge) keepLeases() {
	defer b.wg.Done()
	t := time.NewTicker(b.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-t.C:
		}
		if _, err := b.cfg.DB.Writer.ExecContext(b.ctx, `UPDATE bridge_contexts SET lease_until = ? WHERE leased_by = ? AND state = ?`,
			b.now().Add(b.lease).UnixMilli(), b.owner, StateWorking); err != nil {
			if b.ctx.Err() == nil {
				b.cfg.Logger.Warn("bridge: renewing the leases of the work in hand", "err", err)
			}
			continue
		}
		open, err := b.working(b.ctx)
		if err != nil {
			if b.ctx.Err() == nil {
				b.cfg.Logger.Warn("bridge: looking for work whose replica stopped", "err", err)
			}
			continue
		}
		b.resume(open)
	}
}

// Close stops bridging and waits for the calls in flight. A task still working stays recorded, and
// the next Start watches it again rather than sending its message a second time. On PostgreSQL its
// lease is given up, so another replica's bridge takes it over at its next look.
func (b *Bridge) Close() error {
	b.cancel()
	b.wg.Wait()
	if b.sub != nil {
		b.sub.Close()
	}
	if b.owner != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := b.cfg.DB.Writer.ExecContext(ctx, `UPDATE bridge_contexts SET lease_until = 0 WHERE leased_by = ? AND state = ?`,
			b.owner, StateWorking); err != nil {
			b.cfg.Logger.Warn("bridge: giving up the leases of the work in hand (they run out)", "err", err)
		}
	}
	return nil
}

// subBuffer is how many channel events the bridge's subscription holds; beforeLive, when set (by
// tests), runs before each live event is handled.
var (
	subBuffer  = 1024
	beforeLive func()
)

func (b *Bridge) loop() {
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-b.sub.Lagged:
			b.catchUp()
		case e := <-b.sub.C:
			if beforeLive != nil {
				beforeLive()
			}
			if ch, ok := e.Data.(*channels.Change); ok && ch.Event != nil {
				b.mu.Lock()
				last, known := b.seen[ch.Event.ChannelID]
				b.mu.Unlock()
				if known && ch.Event.Sequence > last+1 {
					b.catchUpChannel(ch.Event.ChannelID, last) // the bus dropped some: read them first, in order
				}
				b.handle(ch.Event)
			}
		}
	}
}

// catchUp reads what the bus did not deliver: the events after the last one seen of every channel
// the bridge has acted in.
func (b *Bridge) catchUp() {
	b.mu.Lock()
	from := make(map[string]int64, len(b.seen))
	for id, seq := range b.seen {
		from[id] = seq
	}
	b.mu.Unlock()
	for id, seq := range from {
		b.catchUpChannel(id, seq)
	}
}

// catchUpChannel handles the events of one channel after sequence seq.
func (b *Bridge) catchUpChannel(id string, seq int64) {
	for b.ctx.Err() == nil {
		events, err := b.cfg.Channels.EventsAfter(b.ctx, id, seq, 200)
		if err != nil {
			b.cfg.Logger.Warn("bridge: cannot read a channel's events", "channel", id, "err", err)
			return
		}
		for _, ev := range events {
			b.handle(ev)
			seq = ev.Sequence
		}
		if len(events) < 200 {
			return
		}
	}
}

// handle decides what one channel event means for the added agents in the channel.
func (b *Bridge) handle(ev *channels.MessageEvent) {
	b.mu.Lock()
	done := ev.Sequence <= b.seen[ev.ChannelID]
	if !done {
		b.seen[ev.ChannelID] = ev.Sequence
	}
	b.mu.Unlock()
	// Marked handled once its jobs are queued: Settled must not see a gap between the two.
	defer func() {
		b.mu.Lock()
		b.handled[ev.ChannelID] = max(b.handled[ev.ChannelID], ev.Sequence)
		b.mu.Unlock()
	}()
	if done {
		return
	}
	// Most events mention no one: they need no read of the channel's members, which on a busy
	// channel cost the hub more than storing the event.
	if actionOf(ev) {
		return // a person's A2UI action, which Act sent to its agent: its words (typed values) mention no one
	}
	text := eventText(ev)
	reply := replyOf(ev)
	if handles, _, _ := mentionTokens(text); len(handles) == 0 && reply == nil {
		return
	}
	members, err := b.cfg.Channels.Members(b.ctx, ev.ChannelID)
	if err != nil {
		b.cfg.Logger.Warn("bridge: cannot read a channel's members", "channel", ev.ChannelID, "err", err)
		return
	}
	var agents []member
	for _, m := range members {
		if id, ok := strings.CutPrefix(m.PrincipalID, remotePrefix); ok {
			a := member{id: id}
			if b.cfg.Name != nil {
				a.slug = Slug(b.cfg.Name(b.ctx, id))
			}
			agents = append(agents, a)
		}
	}
	if len(agents) == 0 {
		return
	}
	self, fromAgent := strings.CutPrefix(ev.Author, remotePrefix)
	hop, answer, origin := 0, true, ev.ID
	if fromAgent {
		// Only the bridge publishes as remote://…: its metadata can be trusted.
		meta := metaOf(ev)
		if meta == nil || endsChain(meta.State) {
			return
		}
		// An agent's answer answers no one's question.
		hop, answer, reply = meta.Hop+1, false, nil
		if meta.Origin != "" { // an answer stored before chains were counted is a chain of its own
			origin = meta.Origin
		}
	} else {
		self = ""
	}
	// An agent's @all is not expanded: an agent that echoes or greets "@all" would otherwise send
	// every answer to every other agent, and their answers to all again.
	targets := mentioned(text, agents, self, !fromAgent)
	replyTo := "" // the agent a reply is for, when it is a member
	if reply != nil {
		for _, a := range agents {
			if remotePrefix+a.id == reply.Member {
				replyTo = a.id
			}
		}
		if replyTo != "" && !slices.Contains(targets, replyTo) {
			targets = append(targets, replyTo)
		}
	}
	if len(targets) == 0 {
		return
	}
	// Acted on from here: recorded first, with the chain's count, so a restart never acts on it
	// again nor forgets what the chain has sent.
	var sent []string
	var stop string // why the chain stops here, when this is its first stop
	claimed := true
	if err := b.cfg.DB.Write(b.ctx, func(tx *sql.Tx) error {
		sent, stop, claimed = nil, "", true
		if b.cfg.DB.Postgres() {
			// Every replica's bridge hears the event: the one whose claim is first acts on it.
			res, err := tx.ExecContext(b.ctx, `INSERT INTO bridge_claims(channel_id, sequence, claimed_at) VALUES (?, ?, ?)
				ON CONFLICT DO NOTHING`, ev.ChannelID, ev.Sequence, b.now().UnixMilli())
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				claimed = false
				return err
			}
		}
		// The larger of the two: SQLite's max() of two values is PostgreSQL's GREATEST.
		larger := `max(bridge_cursors.sequence, excluded.sequence)`
		if b.cfg.DB.Postgres() {
			larger = `GREATEST(bridge_cursors.sequence, excluded.sequence)`
		}
		if _, err := tx.ExecContext(b.ctx, `INSERT INTO bridge_cursors(channel_id, sequence) VALUES (?, ?)
			ON CONFLICT(channel_id) DO UPDATE SET sequence = `+larger, ev.ChannelID, ev.Sequence); err != nil {
			return err
		}
		var forwards int
		var stopped bool
		read := `SELECT forwards, stopped FROM bridge_chains WHERE origin_id = ?`
		if b.cfg.DB.Postgres() {
			// Answers of one chain may be handled by different replicas at once: the chain's row
			// is read under its lock, so their counts add up.
			if _, err := tx.ExecContext(b.ctx, `INSERT INTO bridge_chains(origin_id, forwards, stopped) VALUES (?, 0, 0)
				ON CONFLICT DO NOTHING`, origin); err != nil {
				return err
			}
			read += ` FOR UPDATE`
		}
		err := tx.QueryRowContext(b.ctx, read, origin).Scan(&forwards, &stopped)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var why string
		sent, why = b.allowed(targets, hop, forwards)
		if len(sent) < len(targets) && !stopped {
			stop, stopped = why, true
		}
		_, err = tx.ExecContext(b.ctx, `INSERT INTO bridge_chains(origin_id, forwards, stopped) VALUES (?, ?, ?)
			ON CONFLICT(origin_id) DO UPDATE SET forwards = excluded.forwards, stopped = excluded.stopped`, origin, forwards+len(sent), store.Flag(stopped))
		return err
	}); err != nil {
		b.cfg.Logger.Error("bridge: cannot record a channel event as handled", "channel", ev.ChannelID, "err", err)
		return
	}
	if !claimed {
		return // another replica acts on it
	}
	if stop != "" {
		b.noticeStop(ev, self, targets[len(sent):], stop, hop, origin)
	}
	body := addressed(text)
	for _, id := range sent {
		j := job{event: ev, text: body, hop: hop, origin: origin, answer: answer}
		if id == replyTo {
			j.replyTo = reply.TaskID
		}
		b.enqueue(key{ev.ChannelID, id}, j)
	}
}

// allowed are the targets an event at hop may be sent to, its chain having made forwards sends so
// far, and the notice state that says why the others are not: a person's own message reaches every
// agent it names; an agent's answer goes on within the hop limit and the chain's forward budget.
func (b *Bridge) allowed(targets []string, hop, forwards int) ([]string, string) {
	switch {
	case hop == 0:
		return targets, ""
	case hop > b.cfg.Hops:
		return nil, NoticeHopLimit
	}
	left := max(b.cfg.Forwards-forwards, 0)
	if left >= len(targets) {
		return targets, ""
	}
	return targets[:left], NoticeForwardLimit
}

// noticeStop posts the one notice of a chain that stopped, as the agent whose answer was not
// forwarded (further), to the agents it names by id, without '@': it mentions no one.
func (b *Bridge) noticeStop(ev *channels.MessageEvent, self string, missed []string, state string, hop int, origin string) {
	why := fmt.Sprintf("agents answering agents stop after %d hops (agenthub serve --channel-hops)", b.cfg.Hops)
	if state == NoticeForwardLimit {
		why = fmt.Sprintf("one message leads to at most %d messages to agents (agenthub serve --channel-forwards)", b.cfg.Forwards)
	}
	b.publish(self, ev.ChannelID, fmt.Sprintf("Not forwarded to %s: %s. The rest of this chain stops without another notice.",
		strings.Join(missed, ", "), why), Meta{TaskID: metaOf(ev).TaskID, State: state, Hop: hop, Origin: origin}, "stop:"+origin)
}

// isNotice says whether state is one of the bridge's own notices, which are never forwarded.
func isNotice(state string) bool {
	return state == NoticeHopLimit || state == NoticeForwardLimit || state == NoticeFailed
}

// endsChain says whether an agent's event ends its chain: the bridge's own notices, and the words
// of a task that failed or was rejected (an agent's error is nothing to forward).
func endsChain(state string) bool {
	return isNotice(state) || state == "failed" || state == "rejected"
}

// Settled reports whether the bridge is done with a channel for now: it has handled every event
// stored in it, and no message for any of its agents waits or is in flight. An agent's answer is
// stored before its worker ends, so a chain of agents answering agents is settled only at its end.
func (b *Bridge) Settled(ctx context.Context, channelID string) (bool, error) {
	b.mu.Lock()
	handled := b.handled[channelID]
	busy := false
	for k := range b.queues {
		busy = busy || k.channel == channelID
	}
	b.mu.Unlock()
	if busy {
		return false, nil
	}
	after, err := b.cfg.Channels.EventsAfter(ctx, channelID, handled, 1)
	return len(after) == 0, err
}

// enqueue adds a job to the agent's queue in the channel, starting its worker if it has none.
func (b *Bridge) enqueue(k key, j job) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ctx.Err() != nil {
		return
	}
	q, running := b.queues[k]
	if !running {
		q = &queue{}
		b.queues[k] = q
	}
	q.jobs = append(q.jobs, j)
	if running {
		return
	}
	b.wg.Add(1)
	go b.drain(k, q)
}

func (b *Bridge) drain(k key, q *queue) {
	defer b.wg.Done()
	for {
		b.mu.Lock()
		if len(q.jobs) == 0 || b.ctx.Err() != nil {
			delete(b.queues, k)
			b.mu.Unlock()
			return
		}
		j := q.jobs[0]
		q.jobs = q.jobs[1:]
		b.mu.Unlock()
		if j.resume != "" {
			b.watch(k, j)
		} else {
			b.send(k, j)
		}
	}
}

// send sends one message to the agent and publishes what it answers.
func (b *Bridge) send(k key, j job) {
	row, err := b.context(k)
	if err != nil {
		b.cfg.Logger.Error("bridge: cannot read an agent's context", "channel", k.channel, "agent", k.agent, "err", err)
		return
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(j.text))
	msg.ContextID = row.contextID
	if j.answer && row.state == StateInputRequired && row.taskID != "" && (j.replyTo == "" || j.replyTo == row.taskID) {
		msg.TaskID = a2a.TaskID(row.taskID)
	}
	msg.Metadata = map[string]any{"agenthub": map[string]any{"channelId": k.channel, "eventId": j.event.ID, "author": j.event.Author}}
	if j.a2ui != nil {
		// an action goes back in the task that drew the surface, whatever the agent is doing now
		msg.Parts = a2ui.Parts(j.a2ui) // v0.9 messages as one list, v0.8 ones a part each
		msg.TaskID = a2a.TaskID(j.task)
		if j.dataModel != nil {
			msg.Metadata["a2uiClientDataModel"] = j.dataModel
		}
	}
	out := &answer{b: b, k: k, hop: j.hop, origin: j.origin, taskID: string(msg.TaskID), contextID: row.contextID, title: titleOf(j.text)}
	out.set(StateWorking, true)
	remote, err := b.cfg.Dial(b.ctx, k.agent)
	if err == nil {
		err = chats.Follow(b.ctx, remote, msg, b.cfg.Poll, out.on)
	}
	b.finish(out, err)
}

// watch follows a task that was still working when the hub stopped.
func (b *Bridge) watch(k key, j job) {
	out := &answer{b: b, k: k, hop: j.hop, origin: j.origin, taskID: j.resume, state: StateWorking}
	remote, err := b.cfg.Dial(b.ctx, k.agent)
	if err == nil {
		err = chats.Watch(b.ctx, remote, a2a.TaskID(j.resume), nil, b.cfg.Poll, out.on)
	}
	b.finish(out, err)
}

// finish publishes what is left of an answer and records the agent's state after it.
func (b *Bridge) finish(out *answer, err error) {
	if b.ctx.Err() != nil {
		return // stopping: the task stays "working" and the next start watches it again
	}
	// The agent's state is recorded before its last words are published: whoever reads the channel's
	// final event and then the states sees them agree.
	if err != nil {
		out.set(StateFailed, false)
		out.flush(out.taskState)
		b.publish(out.k.agent, out.k.channel, "Failed: "+b.cfg.Classify(err), out.meta(NoticeFailed), "")
		return
	}
	out.set(stateOf(out.taskState), false)
	out.flush(out.taskState)
}

// stateOf is the bridge state an agent is in when its task is in state s.
func stateOf(s a2a.TaskState) string {
	switch s {
	case a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
		return StateInputRequired
	case a2a.TaskStateFailed, a2a.TaskStateRejected:
		return StateFailed
	case a2a.TaskStateCompleted, a2a.TaskStateCanceled, "":
		return StateIdle
	}
	return StateWorking
}

// taskStateName is the A2A name of a task state for metadata ("input-required", "rejected"), the
// word the Tasks list uses too.
func taskStateName(s a2a.TaskState) string {
	if s == "" {
		return "completed" // an answer that is a message, without a task
	}
	return tasks.StateName(s)
}

// answer gathers one call's events into channel events: an artifact's chunks into one event, a
// message into one, an input-required question or a final status's message into one.
type answer struct {
	b         *Bridge
	k         key
	hop       int
	origin    string
	taskID    string
	contextID string
	taskState a2a.TaskState
	state     string // the bridge state last recorded
	title     string // the start of the message sent ("" when watching a task again)

	artifacts map[a2a.ArtifactID]*a2a.Artifact // being streamed
	order     []a2a.ArtifactID
	pending   []*a2a.Artifact // complete, waiting for the state they are published with
}

// set records the agent's state, unless it is the one recorded already (force: the task or context
// changed, which is recorded too).
func (a *answer) set(state string, force bool) {
	if state == a.state && !force {
		return
	}
	a.state = state
	a.b.setState(a.k, state, a.taskID, a.contextID, a.hop, a.origin, a.recorded(state), a.title)
}

// recorded is the task's A2A state as the Tasks list shows it: the agent's last word, "working"
// before it said one, "failed" when the bridge lost the task (the call failed before it ended).
func (a *answer) recorded(state string) a2a.TaskState {
	ts := a.taskState
	if state == StateFailed && !ts.Terminal() {
		ts = a2a.TaskStateFailed
	}
	if ts == "" {
		ts = a2a.TaskStateWorking
	}
	return ts
}

// titleOf is a task's title in the Tasks list: the first line of the message that began it.
func titleOf(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if r := []rune(line); len(r) > 200 {
		line = string(r[:200]) + "…"
	}
	return line
}

// meta is the bridge's metadata of an event of this answer, in state.
func (a *answer) meta(state string) Meta {
	return Meta{TaskID: a.taskID, State: state, Hop: a.hop, Origin: a.origin}
}

func (a *answer) on(ev a2a.Event) {
	info := ev.TaskInfo()
	changed := false
	if info.TaskID != "" && string(info.TaskID) != a.taskID {
		a.taskID, changed = string(info.TaskID), true
	}
	if info.ContextID != "" && string(info.ContextID) != a.contextID {
		a.contextID, changed = string(info.ContextID), true
	}
	if changed {
		a.set(StateWorking, true)
	}
	switch v := ev.(type) {
	case *a2a.Message:
		a.flush(a.taskState)
		a.b.publishParts(a.k, v.Parts, a.meta(taskStateName(a.taskState)), "msg:"+v.ID)
	case *a2a.Task:
		for _, art := range v.Artifacts {
			if art != nil {
				a.pending = append(a.pending, art)
			}
		}
		a.status(v.Status)
	case *a2a.TaskArtifactUpdateEvent:
		a.artifact(v)
	case *a2a.TaskStatusUpdateEvent:
		a.status(v.Status)
	}
}

func (a *answer) artifact(v *a2a.TaskArtifactUpdateEvent) {
	if v.Artifact == nil {
		return
	}
	if a.artifacts == nil {
		a.artifacts = map[a2a.ArtifactID]*a2a.Artifact{}
	}
	cur, ok := a.artifacts[v.Artifact.ID]
	if !ok || !v.Append {
		cp := *v.Artifact
		cp.Parts = append(a2a.ContentParts(nil), v.Artifact.Parts...)
		cur = &cp
		if !ok {
			a.order = append(a.order, v.Artifact.ID)
		}
		a.artifacts[v.Artifact.ID] = cur
	} else {
		cur.Parts = append(cur.Parts, v.Artifact.Parts...)
	}
	if v.LastChunk {
		a.pending = append(a.pending, cur)
		delete(a.artifacts, v.Artifact.ID)
	}
}

// status applies a status: complete artifacts are published with its state, then a question
// (input-required) or a final status's message.
func (a *answer) status(st a2a.TaskStatus) {
	a.taskState = st.State
	a.flush(st.State)
	meta := a.meta(taskStateName(st.State))
	switch {
	case st.State == a2a.TaskStateInputRequired || st.State == a2a.TaskStateAuthRequired:
		if st.Message != nil && len(st.Message.Parts) > 0 {
			a.b.publishParts(a.k, st.Message.Parts, meta, "status:"+st.Message.ID)
		} else {
			a.b.publish(a.k.agent, a.k.channel, "The agent needs your input to go on.", meta, "status:"+a.taskID+":"+string(st.State))
		}
		a.set(StateInputRequired, false)
	case st.State.Terminal():
		if st.Message != nil && len(st.Message.Parts) > 0 {
			a.b.publishParts(a.k, st.Message.Parts, meta, "status:"+st.Message.ID)
		} else if st.State == a2a.TaskStateFailed || st.State == a2a.TaskStateRejected {
			a.b.publish(a.k.agent, a.k.channel, "The agent ended the task: "+taskStateName(st.State)+".", meta, "status:"+a.taskID+":"+string(st.State))
		}
	}
}

// flush publishes the complete artifacts, and any still streaming, with state s.
func (a *answer) flush(s a2a.TaskState) {
	all := a.pending
	a.pending = nil
	if s.Terminal() || s == "" {
		for _, id := range a.order {
			if art, ok := a.artifacts[id]; ok {
				all = append(all, art)
				delete(a.artifacts, id)
			}
		}
	}
	for _, art := range all {
		a.b.publishParts(a.k, art.Parts, a.meta(taskStateName(s)), "artifact:"+a.taskID+":"+string(art.ID))
	}
}

// publishParts publishes the agent's parts (adjacent text parts joined, as chunks are) as one event.
func (b *Bridge) publishParts(k key, parts a2a.ContentParts, meta Meta, idem string) {
	var merged []*a2a.Part
	for _, p := range parts {
		if p == nil {
			continue
		}
		if t, ok := p.Content.(a2a.Text); ok && len(merged) > 0 {
			if prev, ok := merged[len(merged)-1].Content.(a2a.Text); ok {
				joined := *merged[len(merged)-1]
				joined.Content = prev + t
				merged[len(merged)-1] = &joined
				continue
			}
		}
		merged = append(merged, p)
	}
	raw := channelParts(merged)
	if len(raw) == 0 {
		return
	}
	b.publishRaw(k.agent, k.channel, raw, meta, idem)
}

// publish publishes a text event as the agent.
func (b *Bridge) publish(agentID, channelID, text string, meta Meta, idem string) {
	j, _ := json.Marshal(a2a01.Part{Type: "text", Text: &text})
	b.publishRaw(agentID, channelID, []json.RawMessage{j}, meta, idem)
}

func (b *Bridge) publishRaw(agentID, channelID string, parts []json.RawMessage, meta Meta, idem string) {
	p := channels.PublishParams{ChannelID: channelID, Parts: parts,
		Metadata: map[string]any{"agenthub": map[string]any{"bridge": meta}}}
	if idem != "" {
		// The same answer seen again (a task watched again after a restart) is published once.
		sum := sha256.Sum256([]byte(agentID + "\x00" + idem))
		p.IdempotencyKey = "bridge-" + hex.EncodeToString(sum[:20])
	}
	who := auth.Remote(agentID)
	p = fit(who.ID, p, meta.TaskID)
	// Published under the bridge's life, not the call's: what arrived is kept even as the hub stops.
	ctx := auth.WithPrincipal(context.WithoutCancel(b.ctx), who)
	if _, err := b.cfg.Channels.Publish(ctx, p); err != nil {
		var ce *channels.Error
		if errors.As(err, &ce) && ce.Code == channels.CodeConflict {
			return // published before with other content (a task seen again, changed): the first stays
		}
		b.cfg.Logger.Warn("bridge: cannot publish an agent's answer", "channel", channelID, "agent", agentID, "err", err)
	}
}

// eventText joins the text parts of a channel event.
func eventText(ev *channels.MessageEvent) string {
	var texts []string
	for _, raw := range ev.Parts {
		var p struct {
			Text *string `json:"text"`
		}
		if json.Unmarshal(raw, &p) == nil && p.Text != nil {
			texts = append(texts, *p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// replyOf is an event's metadata.agenthub.replyTo naming an added agent, nil when it has none.
func replyOf(ev *channels.MessageEvent) *Reply {
	hub, _ := ev.Metadata["agenthub"].(map[string]any)
	r, _ := hub["replyTo"].(map[string]any)
	member, _ := r["member"].(string)
	if !strings.HasPrefix(member, remotePrefix) {
		return nil
	}
	task, _ := r["taskId"].(string)
	return &Reply{Member: member, TaskID: task}
}

// metaOf is an event's metadata.agenthub.bridge, nil when it has none.
func metaOf(ev *channels.MessageEvent) *Meta {
	hub, _ := ev.Metadata["agenthub"].(map[string]any)
	if hub == nil {
		return nil
	}
	v, ok := hub["bridge"]
	if !ok {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m Meta
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return &m
}
