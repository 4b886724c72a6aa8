package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// Dialect is the SQL engine under a DB. A feature package whose query differs between the two keeps
// both forms beside each other and picks one with db.Postgres().
type Dialect int

const (
	SQLite Dialect = iota
	Postgres
)

func (d Dialect) String() string {
	if d == Postgres {
		return "postgres"
	}
	return "sqlite"
}

// Flag is b as the 0 or 1 that the hub's INTEGER flag columns hold on both engines. SQLite's driver
// stores a Go bool that way by itself; PostgreSQL refuses a bool in an INTEGER column (and the
// connection can't convert for it: tables of others, goose's own, have BOOLEAN columns).
func Flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// IsPostgresURL tells a PostgreSQL connection URL (postgres:// or postgresql://) from a SQLite path.
func IsPostgresURL(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// WithSchema returns the PostgreSQL URL target with its tables in schema (PostgreSQL's search_path),
// so two agents of one process (the hub and the demo agent) keep their same-named tables apart in
// one database. A SQLite path is returned as it is.
func WithSchema(target, schema string) string {
	if !IsPostgresURL(target) {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Redacted is target without its password, for logs and error messages.
func Redacted(target string) string {
	if !IsPostgresURL(target) {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	return u.Redacted()
}

// readers is how many connections the reading pool keeps to PostgreSQL: reads run in parallel there,
// and each connection is a server process.
const pgReaders = 8

// openPostgres connects to the PostgreSQL database at target. Writes go through the same group-commit
// writer as with SQLite (Write, Tx, WriteLean: the first lane), so every feature package keeps the
// one-writer order it was written for, and pgLanes-1 more lanes carry the writes of WriteOn; each
// lane holds one connection of the Writer pool while a batch runs; PostgreSQL's synchronous_commit (its default, on, and set again here) makes a commit
// durable before Write returns. Reads use a pool.
func openPostgres(target string) (*DB, error) {
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		return nil, fmt.Errorf("database URL %s: %w", Redacted(target), err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	cfg.RuntimeParams["synchronous_commit"] = "on"
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "agenthub"
	}
	schema := cfg.RuntimeParams["search_path"]
	open := func(cfg *pgx.ConnConfig, max int, reads bool) *sql.DB {
		d := sql.OpenDB(rebindConnector{stdlib.GetConnector(*cfg), reads})
		d.SetMaxOpenConns(max)
		d.SetMaxIdleConns(max)
		d.SetConnMaxIdleTime(5 * time.Minute)
		return d
	}
	// The writers run the same few prepared statements over and over, keyed writes and the batch
	// statements that take arrays (unnest); PostgreSQL plans a prepared statement anew for each run
	// until it trusts a generic plan, and for the array statements it never did: a batch of one
	// publish cost 1.0 ms of database CPU against 0.86 with the plan reused (make bench-channels, one
	// publisher: 437 → 560 publishes/s; 64 publishers unchanged). The readers keep custom plans,
	// whose ranges and filters do depend on the values.
	writerCfg := cfg.Copy()
	writerCfg.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	w := open(writerCfg, pgLanes, false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", Redacted(target), err)
	}
	if schema != "" {
		if _, err := w.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{schema}.Sanitize()); err != nil {
			w.Close()
			return nil, fmt.Errorf("create schema %s: %w", schema, err)
		}
	}
	r := open(cfg, pgReaders, true)
	db := &DB{Path: Redacted(target), Writer: w, Reader: r, dialect: Postgres, notes: newNotes(cfg),
		dirty: make(chan struct{}, 1), ckStopped: make(chan struct{})}
	for range pgLanes {
		db.lanes = append(db.lanes, newLane())
	}
	close(db.ckStopped) // PostgreSQL checkpoints by itself
	for _, st := range []struct {
		dst   **sql.Stmt
		query string
	}{{&db.savepoint, `SAVEPOINT w`}, {&db.release, `RELEASE SAVEPOINT w`}, {&db.rollbackTo, `ROLLBACK TO SAVEPOINT w`}} {
		if *st.dst, err = w.Prepare(st.query); err != nil {
			w.Close()
			r.Close()
			return nil, fmt.Errorf("prepare %s: %w", st.query, err)
		}
	}
	db.start()
	return db, nil
}

// The feature packages write their queries with SQLite's ? placeholders, which both engines read the
// same way; PostgreSQL's wire protocol wants $1, $2, … instead. rebindConnector hands database/sql
// connections that rewrite the placeholders of each query once (then from a cache), so one query text
// serves both engines and only real differences of dialect show in the packages.
type rebindConnector struct {
	driver.Connector
	reads bool // the readers' pool (see rebindConn.failed)
}

func (c rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, markUnavailable(err)
	}
	pc, ok := conn.(*stdlib.Conn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("unexpected pgx connection type %T", conn)
	}
	return &rebindConn{pc, c.reads}, nil
}

// rebindConn is a pgx connection (all its database/sql interfaces promoted) whose query texts are
// rebound first, and whose connection failures are marked ErrUnavailable (see unavailable.go).
type rebindConn struct {
	*stdlib.Conn
	reads bool
}

func (c *rebindConn) Prepare(query string) (driver.Stmt, error) {
	return wrapStmt(c.Conn.Prepare(rebind(query)))
}

func (c *rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return wrapStmt(c.Conn.PrepareContext(ctx, rebind(query)))
}

func (c *rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	autocommit := c.idle()
	r, err := c.Conn.ExecContext(ctx, rebind(query), args)
	return r, c.failed(err, autocommit)
}

func (c *rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	autocommit := c.idle()
	r, err := c.Conn.QueryContext(ctx, rebind(query), args)
	return r, c.failed(err, autocommit)
}

var rebound sync.Map // query text -> its PostgreSQL form

// rebind turns each ? placeholder of query into $1, $2, … in order, leaving the ones inside quoted
// strings, quoted identifiers and comments alone.
func rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	if q, ok := rebound.Load(query); ok {
		return q.(string)
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); i++ {
		ch := query[i]
		switch {
		case ch == '\'' || ch == '"':
			j := i + 1
			for j < len(query) {
				if query[j] == ch {
					if j+1 < len(query) && query[j+1] == ch { // a doubled quote stays inside
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(query))
			b.WriteString(query[i:end])
			i = end - 1
		case ch == '-' && i+1 < len(query) && query[i+1] == '-':
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				j = len(query) - i
			}
			b.WriteString(query[i : i+j])
			i += j - 1
		case ch == '/' && i+1 < len(query) && query[i+1] == '*':
			j := strings.Index(query[i+2:], "*/")
			end := len(query)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(query[i:end])
			i = end - 1
		case ch == '?':
			n++
			fmt.Fprintf(&b, "$%d", n)
		default:
			b.WriteByte(ch)
		}
	}
	q := b.String()
	rebound.Store(query, q)
	return q
}

// inFailedTransaction reports PostgreSQL's answer to a statement in a transaction that an earlier
// statement already broke (25P02, in_failed_sql_transaction).
func inFailedTransaction(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "25P02"
}

// lostConflict reports PostgreSQL failing a statement to resolve a conflict between transactions
// (40P01 deadlock_detected, 40001 serialization_failure): run again, it may well succeed.
func lostConflict(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}
