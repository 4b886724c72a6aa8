package hub

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agenthub/agenthub/backend/uiapi"
)

// UITokenPath is where the UI token is kept between runs: owner-only, so open UI tabs and printed
// links survive a restart of the hub. Regenerating it in Settings replaces the file.
func UITokenPath(dataDir string) string { return filepath.Join(dataDir, "ui-token") }

// minTokenLen is the shortest token read back: uiapi.NewToken makes 43 characters.
const minTokenLen = 32

// loadUIToken returns the kept token, or a new one written to the file when there is none, it is
// not a token, or others than the owner may read it (a token others read opens the UI to them).
func loadUIToken(dataDir string) (token string, fresh bool, err error) {
	path := UITokenPath(dataDir)
	if fi, err := os.Stat(path); err == nil && (runtime.GOOS == "windows" || fi.Mode().Perm()&0o077 == 0) {
		if b, err := os.ReadFile(path); err == nil {
			if t := strings.TrimSpace(string(b)); len(t) >= minTokenLen && !strings.ContainsAny(t, " \t\r\n#&?") {
				return t, false, nil
			}
		}
	}
	token = uiapi.NewToken()
	return token, true, saveUIToken(dataDir, token)
}

// saveUIToken replaces the file atomically, mode 0600.
func saveUIToken(dataDir, token string) error {
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
