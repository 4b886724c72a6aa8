package hub

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/uiapi"
)

// The UI token is kept between runs, so open UI tabs and printed links survive a restart of the hub;
// regenerating it in Settings replaces it. On SQLite it is a file in the data dir, owner-only. On
// PostgreSQL it is a row of the hub's database: every replica of the hub accepts the same token, and
// a regenerated one reaches the others through a note (uiTokenTopic).

// The PostgreSQL table (SQLite keeps the file: no SQLite migration).
//
//go:embed migrations/postgres/*.sql
var migrations embed.FS

// uiTokenTopic is the note a regenerated token sends the other replicas: they read it back.
const uiTokenTopic = "ui-token"

// UITokenPath is where the UI token is kept on SQLite.
func UITokenPath(dataDir string) string { return filepath.Join(dataDir, "ui-token") }

// minTokenLen is the shortest token read back: uiapi.NewToken makes 43 characters.
const minTokenLen = 32

// loadUIToken returns the kept token, or a new one kept when there is none (fresh).
func loadUIToken(ctx context.Context, db *store.DB, dataDir string) (token string, fresh bool, err error) {
	if !db.Postgres() {
		if token = readUITokenFile(dataDir); token != "" {
			return token, false, nil
		}
		token = uiapi.NewToken()
		return token, true, saveUIToken(ctx, db, dataDir, token)
	}
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return "", false, err
	}
	if err := db.Migrate(ctx, "ui_token", sub); err != nil {
		return "", false, err
	}
	// The first replica to start keeps its token for all: the one its data dir had, if any (a hub
	// moved onto PostgreSQL keeps its link), else a new one. Replicas starting together agree
	// through the primary key.
	seed := readUITokenFile(dataDir)
	if seed == "" {
		seed = uiapi.NewToken()
	}
	err = db.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO ui_token(id, token) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`, seed)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		fresh = n == 1
		return err
	})
	if err != nil {
		return "", false, fmt.Errorf("keep the UI token: %w", err)
	}
	token, err = readUIToken(ctx, db)
	return token, fresh, err
}

// readUIToken reads the token every replica accepts (PostgreSQL).
func readUIToken(ctx context.Context, db *store.DB) (string, error) {
	var token string
	if err := db.Reader.QueryRowContext(ctx, `SELECT token FROM ui_token WHERE id = 1`).Scan(&token); err != nil {
		return "", fmt.Errorf("read the UI token: %w", err)
	}
	return token, nil
}

// saveUIToken keeps a regenerated token: on PostgreSQL in the table, the other replicas told in the
// same write.
func saveUIToken(ctx context.Context, db *store.DB, dataDir, token string) error {
	if db.Postgres() {
		return db.Write(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `UPDATE ui_token SET token = ? WHERE id = 1`, token); err != nil {
				return err
			}
			return db.Announce(tx, uiTokenTopic, "")
		})
	}
	return saveUITokenFile(dataDir, token)
}

// readUITokenFile returns the token in the data dir's file, or "" when there is none, it is not a
// token, or others than the owner may read it (a token others read opens the UI to them).
func readUITokenFile(dataDir string) string {
	path := UITokenPath(dataDir)
	if fi, err := os.Stat(path); err == nil && (runtime.GOOS == "windows" || fi.Mode().Perm()&0o077 == 0) {
		if b, err := os.ReadFile(path); err == nil {
			if t := strings.TrimSpace(string(b)); len(t) >= minTokenLen && !strings.ContainsAny(t, " \t\r\n#&?") {
				return t
			}
		}
	}
	return ""
}

// saveUITokenFile replaces the file atomically, mode 0600.
func saveUITokenFile(dataDir, token string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dataDir, ".ui-token-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone after the rename; removes a failed attempt
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		tmp.Close()
		return err
	}
	if _, err := tmp.WriteString(token + "\n"); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), UITokenPath(dataDir)); err != nil {
		return fmt.Errorf("keep the UI token: %w", err)
	}
	return nil
}
