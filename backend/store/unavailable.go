package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// ErrUnavailable means the database server cannot be reached now (PostgreSQL stopped, restarting,
// or the network to it down): the call did not happen, or did not commit, and the same call may
// work again shortly. The hub answers it as "storage unavailable" (HTTP 503 on plain routes), not as
// an internal error. Every error the PostgreSQL connections return for such a cause is wrapped so
// that errors.Is(err, ErrUnavailable) holds through the feature packages' own wrapping (%w), and
// its text starts with ErrUnavailable's, so the cause can still be told from an error's message
// once a library has turned the error into text (a2a-go's JSON-RPC handlers do).
var ErrUnavailable = errors.New("storage unavailable")

// Unavailable reports whether err says the database cannot be reached (see ErrUnavailable). It also
// recognises a pgx connection error that did not pass through the hub's connections.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	// Only pgx's and database/sql's own errors here: a network error or io.EOF from elsewhere (a
	// push delivery, a decoder) is no database's.
	var ce *pgconn.ConnectError
	var pe *pgconn.PgError
	return errors.As(err, &ce) || (errors.As(err, &pe) && serverGoingAway(pe.Code)) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, pgconn.ErrConnClosed)
}

// unavailableError marks a connection failure; it unwraps to both ErrUnavailable and the driver's
// own error, so database/sql still sees driver.ErrBadConn (and drops the broken connection for a
// new one) and callers still see the pgx error.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string   { return ErrUnavailable.Error() + ": " + e.err.Error() }
func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.err} }

// markUnavailable wraps err when it is a connection failure (once), and returns it as it is otherwise.
func markUnavailable(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) || !connectionLost(err) {
		return err
	}
	return &unavailableError{err}
}

// connectionLost tells a failure of the connection to PostgreSQL from an error of the statement:
//   - a failed connection attempt (refused, timed out, the server starting up or shutting down:
//     pgconn wraps all of them in a ConnectError);
//   - the server's own word that it is going away or cannot serve: SQLSTATE class 08 (connection
//     exception), 57P01 admin_shutdown (a fast or smart stop), 57P02 crash_shutdown, 57P03
//     cannot_connect_now (starting up, recovering), 53300 too_many_connections;
//   - a connection that broke under a statement: database/sql's driver.ErrBadConn, pgconn's closed
//     connection, an unexpected EOF, a reset, refused or broken pipe from the socket, or another
//     network error.
//
// A statement's own error (a constraint, a syntax error) and a caller's cancelled context are not.
//
// It is only asked about errors that come out of pgx, where a bare network error or io.EOF is the
// socket's.
func connectionLost(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true // including a connect that timed out (ConnectTimeout)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the caller gave up: its own business, even if pgx closed the connection for it
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return serverGoingAway(pe.Code)
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// serverGoingAway tells the SQLSTATEs of a server that cannot serve now from a statement's errors.
func serverGoingAway(code string) bool {
	return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03" || code == "53300"
}

// The hub's PostgreSQL connections (rebindConn) mark their connection failures: every error that
// leaves the driver passes through markUnavailable. io.EOF from Rows.Next (the end of the rows) is
// never marked: rows are not wrapped, and Next's errors come from pgx's row reading, which reports a
// broken connection as a network error, not as io.EOF.

// idle reports whether the connection is outside a transaction, so that a statement run now commits
// (or not) on its own.
func (c *rebindConn) idle() bool { return c.Conn.Conn().PgConn().TxStatus() == 'I' }

// failed marks a statement's connection failure. A pooled connection that the server ended while it
// sat idle (a restart: PostgreSQL sends each session FATAL 57P01 and closes it) answers its next
// statement with that FATAL, and pgx reports it as the statement's error; database/sql would hand it
// to the caller although the server is back. On the readers' pool, a statement that ran on its own
// (autocommit) is then reported as driver.ErrBadConn, and database/sql runs it again on another (new)
// connection: a read is safe to run twice. (The writer's statements run in transactions, and the
// writer tries a failed BEGIN once more itself: see DB.begin.)
func (c *rebindConn) failed(err error, autocommit bool) error {
	var pe *pgconn.PgError
	if c.reads && autocommit && errors.As(err, &pe) && (pe.Code == "57P01" || pe.Code == "57P02") {
		return markUnavailable(errors.Join(driver.ErrBadConn, err))
	}
	return markUnavailable(err)
}

// resetTimeout bounds the liveness check of a pooled connection that sat idle for over a second (pgx
// pings it when database/sql takes it from the pool): a live server answers in milliseconds; a hung
// one (a frozen host, a network that drops packets but sent no reset) would hold the caller for as
// long as TCP takes to give up, minutes. Past it the connection counts as bad and database/sql
// takes another or connects anew, which pgx's ConnectTimeout bounds.
const resetTimeout = 2 * time.Second

func (c *rebindConn) ResetSession(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, resetTimeout)
	defer cancel()
	return c.Conn.ResetSession(ctx)
}

func (c *rebindConn) Ping(ctx context.Context) error {
	return markUnavailable(c.Conn.Ping(ctx))
}

func (c *rebindConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil {
		return nil, markUnavailable(err)
	}
	return unavailableTx{tx}, nil
}

func (c *rebindConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// unavailableTx marks the connection failures of a commit or rollback.
type unavailableTx struct{ driver.Tx }

func (t unavailableTx) Commit() error   { return markUnavailable(t.Tx.Commit()) }
func (t unavailableTx) Rollback() error { return markUnavailable(t.Tx.Rollback()) }

// unavailableStmt is a prepared statement (pgx's) whose connection failures are marked.
type unavailableStmt struct{ *stdlib.Stmt }

func (s unavailableStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	r, err := s.Stmt.ExecContext(ctx, args)
	return r, markUnavailable(err)
}

func (s unavailableStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	r, err := s.Stmt.QueryContext(ctx, args)
	return r, markUnavailable(err)
}

func (s unavailableStmt) Exec(args []driver.Value) (driver.Result, error) {
	r, err := s.Stmt.Exec(args)
	return r, markUnavailable(err)
}

func (s unavailableStmt) Query(args []driver.Value) (driver.Rows, error) {
	r, err := s.Stmt.Query(args)
	return r, markUnavailable(err)
}

// wrapStmt marks a prepared statement's failures, or the failure to prepare it.
func wrapStmt(st driver.Stmt, err error) (driver.Stmt, error) {
	if err != nil {
		return nil, markUnavailable(err)
	}
	if ps, ok := st.(*stdlib.Stmt); ok {
		return unavailableStmt{ps}, nil
	}
	return st, nil
}
