package uiapi

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agenthub/agenthub/backend/store"
)

// A UI call that failed because the database cannot be reached answers code unavailable, in words,
// without the driver's text; a call that failed otherwise stays internal.
func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, err := range []error{
		fmt.Errorf("chats: list: %w", fmt.Errorf("%w: failed to connect to `user=agenthub database=hub`: dial tcp 10.0.0.7:5432: connect: connection refused", store.ErrUnavailable)),
		fmt.Errorf("agents: load: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}),
	} {
		e := errorOf(err, log, "chats.list")
		if e.Code != CodeUnavailable || e.Message != storageMessage || strings.Contains(e.Message, "10.0.0.7") {
			t.Errorf("%v: %+v", err, e)
		}
	}
	if e := errorOf(fmt.Errorf("chats: decode: unexpected end of JSON input"), log, "chats.list"); e.Code != CodeInternal {
		t.Errorf("an error that is not the database's: %+v", e)
	}
}
