package app

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	"github.com/agenthub/agenthub/backend/hub"
)

// instanceID names the single-instance lock of the window on one data directory (Wails'
// SingleInstanceLock.UniqueId: a D-Bus name on Linux, a mutex on Windows). One name per data
// directory, because that is what two windows cannot share: a second launch on the same directory
// hands over to the running window, while a window on another --data still starts.
// dataDir "" is the default directory, as for the hub.
func instanceID(dataDir string) (string, error) {
	if dataDir == "" {
		d, err := hub.DefaultDataDir()
		if err != nil {
			return "", err
		}
		dataDir = d
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(filepath.Clean(abs)))
	// Wails makes a D-Bus name of it: letters, digits and '_' only ('-' and '.' become '_').
	return "agenthub_" + hex.EncodeToString(sum[:8]), nil
}
