package bridge

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/tasks"
)

// contextRow is what the bridge keeps of one agent in one channel.
type contextRow struct {
	contextID, taskID, state string
	hop                      int
	updatedAt                int64
}

func (b *Bridge) context(k key) (contextRow, error) {
	var r contextRow
	err := b.cfg.DB.Reader.QueryRowContext(b.ctx, `SELECT context_id, task_id, state, hop, updated_at FROM bridge_contexts
		WHERE channel_id = ? AND agent_id = ?`, k.channel, k.agent).Scan(&r.contextID, &r.taskID, &r.state, &r.hop, &r.updatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return contextRow{state: StateIdle}, nil
	}
	return r, err
}

// setState records the agent's state in the channel, with the task in hand, and the context the
// agent named (kept once known: contextID "" leaves it as it is), then publishes the state.
// A task in hand is recorded in bridge_tasks with taskState and title (kept once known) in the same
// transaction.
func (b *Bridge) setState(k key, state, taskID, contextID string, hop int, origin string, taskState a2a.TaskState, title string) {
	at := b.now()
	now := at.UnixMilli()
	// Under the bridge's life: a state reached as the hub stops is still kept.
	ctx := context.WithoutCancel(b.ctx)
	// Work in hand is leased to this replica (PostgreSQL; on SQLite owner is "" and nothing expires
	// while the one process runs).
	owner, until := "", int64(0)
	if state == StateWorking && b.owner != "" {
		owner, until = b.owner, b.now().Add(b.lease).UnixMilli()
	}
	err := b.cfg.DB.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO bridge_contexts(channel_id, agent_id, context_id, task_id, state, hop, origin_id, updated_at,
				leased_by, lease_until)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(channel_id, agent_id) DO UPDATE SET
				context_id = CASE WHEN excluded.context_id = '' THEN bridge_contexts.context_id ELSE excluded.context_id END,
				task_id = excluded.task_id, state = excluded.state, hop = excluded.hop, origin_id = excluded.origin_id,
				updated_at = excluded.updated_at, leased_by = excluded.leased_by, lease_until = excluded.lease_until`,
			k.channel, k.agent, contextID, taskID, state, hop, origin, now, owner, until)
		if err != nil || taskID == "" {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO bridge_tasks(agent_id, task_id, channel_id, state, title, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(agent_id, task_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at,
				title = CASE WHEN bridge_tasks.title = '' THEN excluded.title ELSE bridge_tasks.title END`,
			k.agent, taskID, k.channel, string(taskState), title, at.UnixNano(), at.UnixNano())
		return err
	})
	if err != nil {
		b.cfg.Logger.Error("bridge: cannot record an agent's state", "channel", k.channel, "agent", k.agent, "err", err)
		return
	}
	st := &State{ChannelID: k.channel, Member: remotePrefix + k.agent, AgentID: k.agent, State: state, TaskID: taskID, UpdatedAt: now}
	if taskID != "" {
		st.TaskState = tasks.StateName(taskState)
	}
	if state == StateIdle {
		st.TaskID = "" // nothing in hand
	}
	b.cfg.Bus.Publish(bus.Event{Topic: Topic, Key: k.channel, Data: st})
}

type openTask struct {
	key
	taskID string
	hop    int
	origin string
}

// working are the agents that were still working when the bridge last stopped: with the task they
// were working on, or none if the hub stopped before the agent named it. On PostgreSQL, where other
// replicas' bridges have work in hand too, only the work whose lease ran out (its replica stopped),
// taken over here under a lease of this replica's.
func (b *Bridge) working(ctx context.Context) ([]openTask, error) {
	var rows *sql.Rows
	var err error
	if b.owner != "" {
		now := b.now()
		rows, err = b.cfg.DB.Writer.QueryContext(ctx, `UPDATE bridge_contexts SET leased_by = ?, lease_until = ?
			WHERE state = ? AND lease_until < ? AND leased_by != ?
			RETURNING channel_id, agent_id, task_id, hop, origin_id`, b.owner, now.Add(b.lease).UnixMilli(), StateWorking, now.UnixMilli(), b.owner)
	} else {
		rows, err = b.cfg.DB.Reader.QueryContext(ctx, `SELECT channel_id, agent_id, task_id, hop, origin_id FROM bridge_contexts WHERE state = ?`, StateWorking)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []openTask
	for rows.Next() {
		var o openTask
		if err := rows.Scan(&o.channel, &o.agent, &o.taskID, &o.hop, &o.origin); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// States are the working states of the added agents that are members of a channel the caller (in
// ctx) may see, in the channel's member order; an agent the bridge has not talked to yet is idle.
func (b *Bridge) States(ctx context.Context, channelID string) ([]State, error) {
	c, err := b.cfg.Channels.Get(ctx, channelID)
	if err != nil {
		return nil, err
	}
	out := []State{}
	for _, m := range c.Members {
		id, ok := strings.CutPrefix(m.PrincipalID, remotePrefix)
		if !ok {
			continue
		}
		st := State{ChannelID: channelID, Member: m.PrincipalID, AgentID: id, State: StateIdle, UpdatedAt: m.JoinedAt}
		var r contextRow
		var taskState sql.NullString
		err := b.cfg.DB.Reader.QueryRowContext(ctx, `SELECT c.task_id, c.state, c.updated_at, t.state FROM bridge_contexts c
				LEFT JOIN bridge_tasks t ON t.agent_id = c.agent_id AND t.task_id = c.task_id
			WHERE c.channel_id = ? AND c.agent_id = ?`,
			channelID, id).Scan(&r.taskID, &r.state, &r.updatedAt, &taskState)
		switch {
		case err == nil:
			st.State, st.TaskID, st.UpdatedAt = r.state, r.taskID, r.updatedAt
			if taskState.Valid {
				st.TaskState = tasks.StateName(a2a.TaskState(taskState.String))
			}
		case !errors.Is(err, sql.ErrNoRows):
			return nil, err
		}
		if st.State == StateIdle {
			st.TaskID = ""
		}
		out = append(out, st)
	}
	return out, nil
}
