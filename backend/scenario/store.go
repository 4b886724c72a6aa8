package scenario

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/google/uuid"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Topic is the bus topic of changes to saved scenarios and their runs; an event's Key is the
// scenario's id.
const Topic = "scenarios"

// ErrNotFound is an unknown scenario or run.
var ErrNotFound = errors.New("no such scenario")

// Run statuses.
const (
	RunRunning = "running"
	RunPassed  = "passed"
	RunFailed  = "failed"
)

// staleRun is how old a run still running must be for a starting replica to take it as interrupted.
const staleRun = time.Hour

// Saved is a scenario the owner keeps in the hub.
type Saved struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Agent     string    `json:"agent"`
	Source    string    `json:"source"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// StoredRun is one run of a saved scenario: the file as it ran, and its result (the steps done so
// far while it runs).
type StoredRun struct {
	ID         string    `json:"id"`
	ScenarioID string    `json:"scenarioId"`
	Agent      string    `json:"agent"`
	Source     string    `json:"source"`
	StartedAt  time.Time `json:"startedAt"`
	Status     string    `json:"status"`
	Result     *Result   `json:"result"`
}

// Store keeps saved scenarios and their runs in the hub's database.
type Store struct {
	db  *store.DB
	bus *bus.Bus
}

// OpenStore migrates the scenario tables. Runs a previous process left running are failed: nothing
// runs them any more. On PostgreSQL another replica may be running its own, so only runs started
// more than staleRun ago are (a run's steps are bounded by their timeouts).
func OpenStore(ctx context.Context, db *store.DB, b *bus.Bus) (*Store, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, "scenarios", sub); err != nil {
		return nil, err
	}
	s := &Store{db: db, bus: b}
	before := time.Now().UnixNano()
	if db.Postgres() {
		before = time.Now().Add(-staleRun).UnixNano()
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT id, result FROM scenario_runs WHERE status = ? AND started_at < ?`, RunRunning, before)
	if err != nil {
		return nil, err
	}
	type cut struct{ id, result string }
	var cuts []cut
	for rows.Next() {
		var c cut
		if err := rows.Scan(&c.id, &c.result); err != nil {
			rows.Close()
			return nil, err
		}
		cuts = append(cuts, c)
	}
	rows.Close()
	for _, c := range cuts {
		var res Result
		_ = json.Unmarshal([]byte(c.result), &res)
		res.Error = "interrupted: the hub stopped while the scenario ran"
		res.Passed = false
		if err := s.updateRun(ctx, c.id, &res, true); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Store) publish(scenarioID string) {
	if s.bus != nil {
		s.bus.Publish(bus.Event{Topic: Topic, Key: scenarioID})
	}
}

// Save stores source as the scenario id (a new one when id is ""), once it parses: a file that does
// not is refused with its *Error (line and reason) and nothing is stored.
func (s *Store) Save(ctx context.Context, id, source string) (Saved, error) {
	parsed, err := Parse("scenario.yaml", []byte(source))
	if err != nil {
		return Saved{}, err
	}
	now := time.Now()
	sv := Saved{ID: id, Name: parsed.Name, Agent: parsed.Agent, Source: source, CreatedAt: now, UpdatedAt: now}
	if sv.Name == "" {
		sv.Name = "Untitled scenario"
	}
	err = s.db.Write(ctx, func(tx *sql.Tx) error {
		if sv.ID == "" {
			sv.ID = uuid.NewString()
			_, err := tx.ExecContext(ctx, `INSERT INTO scenarios (id, name, agent, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
				sv.ID, sv.Name, sv.Agent, sv.Source, now.UnixNano(), now.UnixNano())
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE scenarios SET name = ?, agent = ?, source = ?, updated_at = ? WHERE id = ?`,
			sv.Name, sv.Agent, sv.Source, now.UnixNano(), sv.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.NothingWritten(fmt.Errorf("%w: %q", ErrNotFound, sv.ID))
		}
		return nil
	})
	if err != nil {
		return Saved{}, err
	}
	s.publish(sv.ID)
	return s.Get(ctx, sv.ID)
}

// Get returns one saved scenario.
func (s *Store) Get(ctx context.Context, id string) (Saved, error) {
	var sv Saved
	var created, updated int64
	err := s.db.Reader.QueryRowContext(ctx, `SELECT id, name, agent, source, created_at, updated_at FROM scenarios WHERE id = ?`, id).
		Scan(&sv.ID, &sv.Name, &sv.Agent, &sv.Source, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Saved{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	sv.CreatedAt, sv.UpdatedAt = time.Unix(0, created), time.Unix(0, updated)
	return sv, err
}

// List returns the saved scenarios, the last changed first.
func (s *Store) List(ctx context.Context) ([]Saved, error) {
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT id, name, agent, source, created_at, updated_at FROM scenarios ORDER BY updated_at DESC, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Saved
	for rows.Next() {
		var sv Saved
		var created, updated int64
		if err := rows.Scan(&sv.ID, &sv.Name, &sv.Agent, &sv.Source, &created, &updated); err != nil {
			return nil, err
		}
		sv.CreatedAt, sv.UpdatedAt = time.Unix(0, created), time.Unix(0, updated)
		out = append(out, sv)
	}
	return out, rows.Err()
}

// Delete removes a saved scenario and its runs.
func (s *Store) Delete(ctx context.Context, id string) error {
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM scenario_runs WHERE scenario_id = ?`, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM scenarios WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.NothingWritten(fmt.Errorf("%w: %q", ErrNotFound, id))
		}
		return nil
	})
	if err == nil {
		s.publish(id)
	}
	return err
}

// StartRun records a run of the saved scenario against agent, running, with no step done yet.
func (s *Store) StartRun(ctx context.Context, sv Saved, agent string) (StoredRun, error) {
	run := StoredRun{ID: uuid.NewString(), ScenarioID: sv.ID, Agent: agent, Source: sv.Source, StartedAt: time.Now(), Status: RunRunning,
		Result: &Result{Name: sv.Name, Agent: agent, Steps: []StepResult{}}}
	body, _ := json.Marshal(run.Result)
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO scenario_runs (id, scenario_id, agent, source, started_at, status, result) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			run.ID, run.ScenarioID, run.Agent, run.Source, run.StartedAt.UnixNano(), run.Status, string(body))
		return err
	})
	if err != nil {
		return StoredRun{}, err
	}
	s.publish(sv.ID)
	return run, nil
}

// UpdateRun records the run's result so far; done ends it (passed or failed as the result says).
func (s *Store) UpdateRun(ctx context.Context, scenarioID, runID string, res *Result, done bool) error {
	if err := s.updateRun(ctx, runID, res, done); err != nil {
		return err
	}
	s.publish(scenarioID)
	return nil
}

func (s *Store) updateRun(ctx context.Context, runID string, res *Result, done bool) error {
	body, err := json.Marshal(res)
	if err != nil {
		return err
	}
	status := RunRunning
	if done {
		status = RunFailed
		if res.Passed {
			status = RunPassed
		}
	}
	return s.db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE scenario_runs SET status = ?, result = ? WHERE id = ?`, status, string(body), runID)
		return err
	})
}

// Runs returns the scenario's runs, the newest first, at most limit.
func (s *Store) Runs(ctx context.Context, scenarioID string, limit int) ([]StoredRun, error) {
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT id, scenario_id, agent, source, started_at, status, result FROM scenario_runs
		WHERE scenario_id = ? ORDER BY started_at DESC, id LIMIT ?`, scenarioID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StoredRun
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// GetRun returns one run.
func (s *Store) GetRun(ctx context.Context, runID string) (StoredRun, error) {
	r, err := scanRun(s.db.Reader.QueryRowContext(ctx, `SELECT id, scenario_id, agent, source, started_at, status, result FROM scenario_runs WHERE id = ?`, runID))
	if errors.Is(err, sql.ErrNoRows) {
		return StoredRun{}, fmt.Errorf("%w: no run %q", ErrNotFound, runID)
	}
	return r, err
}

func scanRun(row interface{ Scan(...any) error }) (StoredRun, error) {
	var r StoredRun
	var started int64
	var result string
	if err := row.Scan(&r.ID, &r.ScenarioID, &r.Agent, &r.Source, &started, &r.Status, &result); err != nil {
		return StoredRun{}, err
	}
	r.StartedAt = time.Unix(0, started)
	r.Result = &Result{}
	if err := json.Unmarshal([]byte(result), r.Result); err != nil {
		return StoredRun{}, fmt.Errorf("run %s: its stored result does not read: %w", r.ID, err)
	}
	return r, nil
}
