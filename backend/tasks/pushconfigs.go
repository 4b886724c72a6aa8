package tasks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/google/uuid"

	"github.com/agenthub/agenthub/backend/store"
)

// PushConfigs is the SQLite push-notification config store (a2a-go's push.ConfigStore).
type PushConfigs struct {
	db  *store.DB
	err error // the push index did not load: every call fails with it
	ix  *pushIndex
}

var _ push.ConfigStore = (*PushConfigs)(nil)

// NewPushConfigs returns the store; its table is created by Open's migrations.
func NewPushConfigs(db *store.DB) *PushConfigs {
	ix, err := pushIndexOf(context.Background(), db)
	return &PushConfigs{db: db, ix: ix, err: err}
}

// MaxPushConfigsPerTask bounds what one task may register, so a client cannot grow the table without end.
const MaxPushConfigsPerTask = 10

func validatePushConfig(c *a2a.PushConfig) error {
	if c == nil {
		return fmt.Errorf("push config is required: %w", a2a.ErrInvalidParams)
	}
	u, err := url.ParseRequestURI(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("push config url must be an absolute http(s) URL, got %q: %w", c.URL, a2a.ErrInvalidParams)
	}
	return nil
}

// Save inserts or replaces the config (a new id is generated when none is given).
func (p *PushConfigs) Save(ctx context.Context, taskID a2a.TaskID, c *a2a.PushConfig) (*a2a.PushConfig, error) {
	if err := validatePushConfig(c); err != nil {
		return nil, err
	}
	saved := *c
	saved.TaskID = taskID
	if saved.ID == "" {
		saved.ID = uuid.Must(uuid.NewV7()).String()
	}
	body, err := json.Marshal(&saved)
	if err != nil {
		return nil, err
	}
	if p.err != nil {
		return nil, p.err
	}
	err = p.db.Write(ctx, func(tx *sql.Tx) error {
		ctx := context.WithoutCancel(ctx) // an interrupted statement would roll back the whole batch
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM push_configs WHERE task_id = ? AND id <> ?`, taskID, saved.ID).Scan(&n); err != nil {
			return err
		}
		if n >= MaxPushConfigsPerTask {
			return fmt.Errorf("a task may have at most %d push configs: %w", MaxPushConfigsPerTask, a2a.ErrInvalidParams)
		}
		// created_at is unix seconds from the hub's clock (SQLite's unixepoch() before; PostgreSQL has none).
		_, err := tx.ExecContext(ctx, `INSERT INTO push_configs(task_id, id, config_json, dialect, created_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT(task_id, id) DO UPDATE SET config_json = excluded.config_json, dialect = excluded.dialect`,
			taskID, saved.ID, body, string(dialectFrom(ctx)), time.Now().Unix())
		if err == nil {
			p.ix.set(taskID, true)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &saved, nil
}

// Get returns one config, or push.ErrPushConfigNotFound.
func (p *PushConfigs) Get(ctx context.Context, taskID a2a.TaskID, id string) (*a2a.PushConfig, error) {
	var body []byte
	err := p.db.Reader.QueryRowContext(ctx, `SELECT config_json FROM push_configs WHERE task_id = ? AND id = ?`, taskID, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		// Also a2a.ErrTaskNotFound, so a2a-go's handler answers -32001 instead of an internal error.
		return nil, fmt.Errorf("%w: %s of task %s (%w)", push.ErrPushConfigNotFound, id, taskID, a2a.ErrTaskNotFound)
	}
	if err != nil {
		return nil, err
	}
	var c a2a.PushConfig
	return &c, json.Unmarshal(body, &c)
}

// List returns the task's configs, oldest first. a2a-go asks on every event of every task; a task
// without configs (nearly all) is answered from the push index, without a query.
func (p *PushConfigs) List(ctx context.Context, taskID a2a.TaskID) ([]*a2a.PushConfig, error) {
	if p.err == nil && !p.ix.mayHave(taskID) {
		return []*a2a.PushConfig{}, nil
	}
	rows, err := p.db.Reader.QueryContext(ctx, `SELECT config_json FROM push_configs WHERE task_id = ? ORDER BY `+pushConfigOrder(p.db), taskID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*a2a.PushConfig{}
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		var c a2a.PushConfig
		if err := json.Unmarshal(body, &c); err != nil {
			return nil, err
		}
		out = append(out, &c)
	}
	return out, rows.Err()
}

// StoredPushConfig is a push config with the dialect of the method that set it.
type StoredPushConfig struct {
	Config  *a2a.PushConfig
	Dialect Dialect
}

// pushConfigOrder is the ORDER BY of a task's configs, oldest first: by when each was first set, and
// configs set within the same second in insertion order (SQLite's rowid; PostgreSQL has none, its
// table has a seq column instead).
func pushConfigOrder(db *store.DB) string {
	if db.Postgres() {
		return "created_at, seq"
	}
	return "created_at, rowid"
}

// listPushConfigs reads the task's configs, oldest first, inside a write transaction of db.
func listPushConfigs(ctx context.Context, db *store.DB, tx *sql.Tx, taskID a2a.TaskID) ([]*StoredPushConfig, error) {
	rows, err := tx.QueryContext(ctx, `SELECT config_json, dialect FROM push_configs WHERE task_id = ? ORDER BY `+pushConfigOrder(db), taskID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*StoredPushConfig
	for rows.Next() {
		var body []byte
		var d string
		if err := rows.Scan(&body, &d); err != nil {
			return nil, err
		}
		c := &StoredPushConfig{Config: &a2a.PushConfig{}, Dialect: Dialect(d)}
		if err := json.Unmarshal(body, c.Config); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Delete removes one config; deleting a missing one is not an error (the operation is idempotent).
func (p *PushConfigs) Delete(ctx context.Context, taskID a2a.TaskID, id string) error {
	return p.delete(ctx, taskID, `DELETE FROM push_configs WHERE task_id = ? AND id = ?`, taskID, id)
}

// DeleteAll removes every config of the task.
func (p *PushConfigs) DeleteAll(ctx context.Context, taskID a2a.TaskID) error {
	return p.delete(ctx, taskID, `DELETE FROM push_configs WHERE task_id = ?`, taskID)
}

// delete runs a DELETE on the task's configs and tells the push index whether any are left.
func (p *PushConfigs) delete(ctx context.Context, taskID a2a.TaskID, query string, args ...any) error {
	if p.err != nil {
		return p.err
	}
	return p.db.Write(ctx, func(tx *sql.Tx) error {
		ctx := context.WithoutCancel(ctx) // an interrupted statement would roll back the whole batch
		if _, err := tx.ExecContext(ctx, query, args...); err != nil {
			return err
		}
		var left bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM push_configs WHERE task_id = ?)`, taskID).Scan(&left); err != nil {
			return err
		}
		p.ix.set(taskID, left)
		return nil
	})
}
