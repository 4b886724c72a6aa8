// Package store opens the hub's SQLite database (modernc.org/sqlite, pure Go) and runs each feature
// package's embedded migrations. It owns no tables itself: the SQL of a table lives in the package that
// owns it, and that package hands its migrations to Migrate.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is one SQLite file opened twice: a single writer connection, so writes never fight over the lock
// (SQLite allows one writer at a time anyway), and a pool of readers that WAL lets run beside it.
type DB struct {
	Path   string
	Writer *sql.DB
	Reader *sql.DB
}

// Open opens (creating if needed) the SQLite file at path with WAL, synchronous=FULL (an acknowledged
// write survives power loss, not only a process crash), a busy timeout and foreign keys.
func Open(path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	dsn := func(readOnly bool) string {
		q := url.Values{}
		for _, p := range []string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)", "foreign_keys(ON)"} {
			q.Add("_pragma", p)
		}
		if readOnly {
			q.Add("_pragma", "query_only(ON)")
		}
		q.Set("_txlock", "immediate")
		return "file:" + filepath.ToSlash(path) + "?" + q.Encode()
	}
	w, err := sql.Open("sqlite", dsn(false))
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	if err := w.Ping(); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn(true))
	if err != nil {
		w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(4)
	return &DB{Path: path, Writer: w, Reader: r}, nil
}

// Close closes both pools.
func (db *DB) Close() error {
	return errors.Join(db.Reader.Close(), db.Writer.Close())
}

// ErrSchemaTooNew means the file was migrated by a newer AgentHub than this binary.
var ErrSchemaTooNew = errors.New("database schema is newer than this AgentHub")

// Migrate applies the numbered .sql migrations in fsys (goose format) for one component, tracked in
// its own version table, so each package evolves its tables independently. It refuses a database whose
// version for the component is higher than the newest migration this binary knows.
func (db *DB) Migrate(ctx context.Context, component string, fsys fs.FS) error {
	p, err := goose.NewProvider(goose.DialectSQLite3, db.Writer, fsys,
		goose.WithTableName("schema_"+component), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("migrations of %s: %w", component, err)
	}
	current, target, err := p.GetVersions(ctx)
	if err != nil {
		return fmt.Errorf("schema version of %s: %w", component, err)
	}
	if current > target {
		return fmt.Errorf("%w: %s is at version %d, this binary knows up to %d (%s)", ErrSchemaTooNew, component, current, target, db.Path)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	return nil
}

// Tx runs fn in a write transaction (BEGIN IMMEDIATE on the single writer) and commits it.
func (db *DB) Tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.Writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}
