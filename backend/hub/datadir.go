package hub

import (
	"errors"
	"os"
	"path/filepath"
)

// ErrInUse means another AgentHub process runs over the same data (it holds the lock).
var ErrInUse = errors.New("in use by another AgentHub process")

// HubDBPath is the hub's database in a data directory.
func HubDBPath(dataDir string) string { return filepath.Join(dataDir, "hub.db") }

// LockHubDB takes the lock a running hub holds on its database, for commands that change hub.db
// while the hub is stopped (`agenthub principals`). It fails with ErrInUse while a hub runs on the
// directory; a hub started while it is held refuses to start. release drops the lock.
func LockHubDB(dataDir string) (release func(), err error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	return lockFile(HubDBPath(dataDir) + ".lock")
}
