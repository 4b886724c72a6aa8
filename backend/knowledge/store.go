package knowledge

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agenthub/agenthub/backend/store"
)

// row is a statement as stored in kg_statements, with its metadata.
type row struct {
	ID            int64
	Stmt          Statement
	Source        string
	Justification string
	CreatedAt     time.Time
	UpdatedAt     time.Time

	unread *unreadRow // set when only the quad's part (subject, predicate, object, graph) is here yet
}

// unreadRow is how a row answered from its quad reads the rest of itself, once.
type unreadRow struct {
	once sync.Once
	find *sql.Stmt
	key  key
	err  error
}

// meta reads the rest of a row answered from its quad (see Service.edgesOf); a no-op for a full row.
func (r *row) meta(ctx context.Context) error {
	u := r.unread
	if u == nil {
		return nil
	}
	u.once.Do(func() {
		full, err := findRow(ctx, u.find, u.key)
		switch {
		case err != nil:
			u.err = err
		case full == nil:
			u.err = fmt.Errorf("the statement %s %s %s was removed meanwhile", u.key.subject, u.key.predicate, u.key.object)
		default:
			r.ID, r.Stmt, r.Source, r.Justification, r.CreatedAt, r.UpdatedAt = full.ID, full.Stmt, full.Source, full.Justification, full.CreatedAt, full.UpdatedAt
		}
	})
	return u.err
}

const rowColumns = `id, subject, predicate, object_id, value_json, datatype, graph, certainty, provenance, source, justification, created_at, updated_at`

type scanner interface{ Scan(...any) error }

func scanRow(sc scanner) (*row, error) {
	var r row
	var objectID, valueJSON, datatype, provenance, justification sql.NullString
	var certainty float64
	var created, updated string
	if err := sc.Scan(&r.ID, &r.Stmt.Subject.ID, &r.Stmt.Predicate.ID, &objectID, &valueJSON, &datatype, &r.Stmt.Graph,
		&certainty, &provenance, &r.Source, &justification, &created, &updated); err != nil {
		return nil, err
	}
	r.Stmt.Object.ID = objectID.String
	if valueJSON.Valid {
		if err := json.Unmarshal([]byte(valueJSON.String), &r.Stmt.Object.Value); err != nil {
			return nil, err
		}
		r.Stmt.Object.Type = datatype.String
		if lang, ok := strings.CutPrefix(datatype.String, "@"); ok {
			r.Stmt.Object.Language = lang
		}
	}
	r.Stmt.Certainty = &certainty
	if provenance.Valid {
		_ = json.Unmarshal([]byte(provenance.String), &r.Stmt.Provenance)
	}
	r.Justification = justification.String
	r.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	r.UpdatedAt, _ = time.Parse(time.RFC3339Nano, updated)
	return &r, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// stmts are the statements run once per statement of an update or per edge a query reads,
// prepared once (find on the reader pool, the others on the writer connection, used in a
// transaction through tx.StmtContext): parsing them every time was most of an update's time in
// hub.db and most of a node lookup's.
type stmts struct {
	find, findTx, insert, update, change *sql.Stmt
	usage, addUsage                      *sql.Stmt // a principal's kg_usage row; an update's inserts added to it
	// changeReturns says change answers the new change's seq as a row (PostgreSQL) rather than as
	// the insert's LastInsertId (SQLite).
	changeReturns bool
}

const (
	findQuery = `SELECT ` + rowColumns + ` FROM kg_statements WHERE subject = ? AND predicate = ? AND obj_key = ? AND graph = ?`
	// An add inserts the statement, or (insert changed no row) updates the metadata of the one
	// there: whether the statement was there is what the graph's apply needs to know.
	insertQuery = `INSERT INTO kg_statements
		(subject, predicate, obj_key, object_id, value_json, datatype, graph, certainty, provenance, source, justification, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (subject, predicate, obj_key, graph) DO NOTHING`
	updateQuery = `UPDATE kg_statements SET certainty = ?, provenance = ?, source = ?, justification = ?, updated_at = ?
		WHERE subject = ? AND predicate = ? AND obj_key = ? AND graph = ?`
	usageQuery    = `SELECT statements, bytes FROM kg_usage WHERE principal = ?`
	addUsageQuery = `INSERT INTO kg_usage (principal, statements, bytes) VALUES (?, ?, ?)
		ON CONFLICT (principal) DO UPDATE SET statements = kg_usage.statements + excluded.statements, bytes = kg_usage.bytes + excluded.bytes`
	// On SQLite the new change's seq is the insert's LastInsertId: a RETURNING row costs the
	// driver a query's machinery for every change, and loading 100k statements took 1.5× as long
	// with it. PostgreSQL's driver has no LastInsertId, so there it is RETURNING.
	changeQuery          = `INSERT INTO kg_changes (op, statement, source, created_at) VALUES (?, ?, ?, ?)`
	changeReturningQuery = changeQuery + ` RETURNING seq`
)

func prepareStmts(ctx context.Context, db *store.DB) (*stmts, error) {
	var st stmts
	var errs []error
	p := func(dst **sql.Stmt, pool *sql.DB, query string) {
		s, err := pool.PrepareContext(ctx, query)
		*dst = s
		errs = append(errs, err)
	}
	p(&st.find, db.Reader, findQuery)
	p(&st.findTx, db.Writer, findQuery)
	p(&st.insert, db.Writer, insertQuery)
	p(&st.update, db.Writer, updateQuery)
	p(&st.usage, db.Writer, usageQuery)
	p(&st.addUsage, db.Writer, addUsageQuery)
	if st.changeReturns = db.Postgres(); st.changeReturns {
		p(&st.change, db.Writer, changeReturningQuery)
	} else {
		p(&st.change, db.Writer, changeQuery)
	}
	return &st, errors.Join(errs...)
}

// findRow is the stored statement with key k, or nil; find is stmts.find or a transaction's findTx.
func findRow(ctx context.Context, find *sql.Stmt, k key) (*row, error) {
	r, err := scanRow(find.QueryRowContext(ctx, k.subject, k.predicate, k.object, k.graph))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return r, err
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// encoded is a statement's JSON as kg_changes keeps it, and its provenance's as kg_statements
// does, each encoded once (an update's default provenance once for all its statements).
type encoded struct {
	statement string
	prov      any // string, or nil
}

// wireStatement is Statement with its provenance already encoded: encoding/json writes the same
// text for it (same fields in the same order; a map's keys are sorted either way).
type wireStatement struct {
	Subject    Subject         `json:"subject"`
	Predicate  Predicate       `json:"predicate"`
	Object     Object          `json:"object"`
	Graph      string          `json:"graph,omitempty"`
	Certainty  *float64        `json:"certainty,omitempty"`
	Provenance json.RawMessage `json:"provenance,omitempty"`
}

// encode encodes s; prov is s.Provenance already encoded, or nil to encode it here.
func encode(s Statement, prov json.RawMessage) (encoded, error) {
	if prov == nil && len(s.Provenance) > 0 {
		var err error
		if prov, err = json.Marshal(s.Provenance); err != nil {
			return encoded{}, err
		}
	}
	b, err := json.Marshal(wireStatement{s.Subject, s.Predicate, s.Object, s.Graph, s.Certainty, prov})
	if err != nil {
		return encoded{}, err
	}
	e := encoded{statement: string(b)}
	if prov != nil {
		e.prov = string(prov)
	}
	return e, nil
}

// upsertRow stores s (new, or new metadata for the one there) and says whether it was new, and
// then how many bytes its row holds (kg_usage's measure: every text column's UTF-8 bytes), for the
// update to count in its writer's usage: inserts have no trigger doing so (migration 00004).
func upsertRow(ctx context.Context, insert, update *sql.Stmt, s Statement, enc encoded, source, justification string, now time.Time) (inserted bool, bytes int64, err error) {
	var valueJSON string
	var valueArg any // NULL for a link
	if s.Object.ID == "" {
		b, _ := json.Marshal(s.Object.Value)
		valueJSON = string(b)
		valueArg = valueJSON
	}
	ts := now.UTC().Format(time.RFC3339Nano)
	objKey := objectKey(s.Object.quadValue())
	datatype := s.Object.datatype()
	prov, _ := enc.prov.(string)
	res, err := insert.ExecContext(ctx,
		s.Subject.ID, s.Predicate.ID, objKey, nullable(s.Object.ID), valueArg, nullable(datatype),
		s.Graph, *s.Certainty, enc.prov, source, nullable(justification), ts, ts)
	if err != nil {
		return false, 0, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		bytes = int64(len(s.Subject.ID) + len(s.Predicate.ID) + len(objKey) + len(s.Graph) + len(s.Object.ID) +
			len(valueJSON) + len(datatype) + len(prov) + len(justification))
		return n == 1, bytes, err
	}
	_, err = update.ExecContext(ctx, *s.Certainty, enc.prov, source, nullable(justification), ts,
		s.Subject.ID, s.Predicate.ID, objKey, s.Graph)
	return false, 0, err
}

// addUsage adds an update's inserted rows to principal's usage; add is stmts.addUsage in the
// update's transaction.
func addUsage(ctx context.Context, add *sql.Stmt, principal string, u usage) error {
	_, err := add.ExecContext(ctx, principal, u.statements, u.bytes)
	return err
}

func deleteRow(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM kg_statements WHERE id = ?`, id)
	return err
}

// appendChange logs one change (its statement encoded in enc) and returns its sequence number;
// returns says change is the RETURNING form (stmts.changeReturns).
func appendChange(ctx context.Context, change *sql.Stmt, returns bool, op string, enc encoded, source string, now time.Time) (int64, error) {
	at := now.UTC().Format(time.RFC3339Nano)
	if returns {
		var seq int64
		err := change.QueryRowContext(ctx, op, enc.statement, source, at).Scan(&seq)
		return seq, err
	}
	res, err := change.ExecContext(ctx, op, enc.statement, source, at)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Change is one entry of the change log.
type Change struct {
	Seq       int64
	Op        string
	Statement Statement
	Source    string
	At        time.Time

	// before says whether kg_statements held the statement just before this change, when the
	// update that made it knows (a change read back from the log does not: beforeUnknown).
	before presence
}

type presence uint8

const (
	beforeUnknown presence = iota
	beforeAbsent
	beforePresent
)

// changesAfter reads up to limit changes with seq > after, in order.
func changesAfter(ctx context.Context, db *sql.DB, after int64, limit int) ([]Change, error) {
	rows, err := db.QueryContext(ctx, `SELECT seq, op, statement, source, created_at FROM kg_changes WHERE seq > ? ORDER BY seq LIMIT ?`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var c Change
		var stmt, at string
		if err := rows.Scan(&c.Seq, &c.Op, &stmt, &c.Source, &at); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(stmt), &c.Statement); err != nil {
			return nil, err
		}
		// A change logged by an earlier version names its terms as that version stored them
		// (well-known CURIEs, "@tag" as a datatype): read in today's form, as kg_statements holds it.
		_ = c.Statement.canonicalize(nil)
		c.At, _ = time.Parse(time.RFC3339Nano, at)
		out = append(out, c)
	}
	return out, rows.Err()
}

// lastChangeSeq is the sequence number of the last change logged (0 when none).
func lastChangeSeq(ctx context.Context, q querier) (int64, error) {
	var seq int64
	err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM kg_changes`).Scan(&seq)
	return seq, err
}

func readState(ctx context.Context, q querier, name string) (int64, error) {
	var v int64
	err := q.QueryRowContext(ctx, `SELECT value FROM kg_state WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func writeState(ctx context.Context, e execer, name string, v int64) error {
	_, err := e.ExecContext(ctx, `INSERT INTO kg_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`, name, v)
	return err
}

type execTx = *sql.Tx

type rowQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// rowsOf are the statements of subject and predicate in graph.
func rowsOf(ctx context.Context, q rowQuerier, subject, predicate, graph string) ([]*row, error) {
	return selectRows(ctx, q, `SELECT `+rowColumns+` FROM kg_statements WHERE subject = ? AND predicate = ? AND graph = ? ORDER BY id`,
		subject, predicate, graph)
}

func selectRows(ctx context.Context, q rowQuerier, query string, args ...any) ([]*row, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*row
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// usage is what one principal's statements hold (kg_usage: inserts counted by their update,
// rewrites and removals by triggers on kg_statements).
type usage struct{ statements, bytes int64 }

// scanUsage reads a kg_usage row (usageQuery's); a principal without one has written nothing.
func scanUsage(r *sql.Row) (usage, error) {
	var u usage
	err := r.Scan(&u.statements, &u.bytes)
	if errors.Is(err, sql.ErrNoRows) {
		return usage{}, nil
	}
	return u, err
}
