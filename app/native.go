package app

// The plain-Go half of the window's bindings: checks, file reading and writing, the webview's origin
// and the fallback page. It has no Wails import, so `go test ./app/...` covers it without webkit;
// desktop.go wires it to the native dialogs.

import (
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// Connection tells the frontend where the hub's UI websocket is and which token opens it.
type Connection struct {
	WSURL string `json:"wsUrl"`
	Token string `json:"token"`
	UIURL string `json:"uiUrl"`
}

// PickedFile is one file chosen in the native open dialog, ready to attach to a message.
type PickedFile struct {
	Name      string `json:"name"`
	MediaType string `json:"mediaType"`
	Bytes     string `json:"bytes"` // base64 (standard encoding, padded)
}

// MaxFileBytes is the largest file OpenFiles accepts, and the most all picked files may add up to:
// the hub refuses request bodies over 8 MiB, and its UI websocket refuses frames over 12 MiB (8 MiB
// of files is about 10.7 MiB once base64-encoded).
const MaxFileBytes = 8 << 20

// ErrFileTooLarge is wrapped by OpenFiles' error for a file (or a set of files) over MaxFileBytes.
var ErrFileTooLarge = errors.New("too large to attach")

// checkOpenURL accepts only absolute http(s) URLs without credentials: OpenURL hands its argument to
// the system's URL opener, which would also run file:, javascript: or custom-scheme handlers.
func checkOpenURL(raw string) (string, error) {
	if len(raw) > 4096 {
		return "", errors.New("refusing to open a URL longer than 4096 bytes")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("refusing to open %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("refusing to open %q: only http and https links are opened", raw)
	}
	if u.Host == "" {
		return "", fmt.Errorf("refusing to open %q: no host", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("refusing to open a URL with credentials in it")
	}
	return u.String(), nil
}

// decodeBase64 accepts standard base64, padded or not (what btoa and FileReader produce).
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, fmt.Errorf("the file's data is not valid base64: %w", err)
	}
	return b, nil
}

// safeFileName turns a name a remote agent chose into one the save dialog can propose: no directory
// parts, no control characters, not hidden, not empty.
func safeFileName(name string) string {
	name = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r):
			return -1
		case strings.ContainsRune(`\/:*?"<>|`, r):
			return '_'
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ".")
	if r := []rune(name); len(r) > 200 {
		name = string(r[:200])
	}
	if name == "" {
		return "download"
	}
	return name
}

// writeFile writes data to path through a temporary file in the same directory, so a failed write
// never leaves a half-written file under the chosen name.
func writeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.part")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readPicked reads the files the open dialog returned, refusing any over MaxFileBytes and a set
// adding up to more than that.
func readPicked(paths []string) ([]PickedFile, error) {
	out := make([]PickedFile, 0, len(paths))
	var total int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", filepath.Base(p))
		}
		if st.Size() > MaxFileBytes {
			return nil, fmt.Errorf("%s is %s: %w (files can be at most %s each)",
				filepath.Base(p), sizeString(st.Size()), ErrFileTooLarge, sizeString(MaxFileBytes))
		}
		total += st.Size()
		if total > MaxFileBytes {
			return nil, fmt.Errorf("the chosen files add up to more than %s: %w (send them in separate messages)",
				sizeString(MaxFileBytes), ErrFileTooLarge)
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		// Read at most one byte past the limit: the file may have grown since Stat.
		data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
		f.Close()
		if err != nil {
			return nil, err
		}
		if len(data) > MaxFileBytes {
			return nil, fmt.Errorf("%s: %w", filepath.Base(p), ErrFileTooLarge)
		}
		out = append(out, PickedFile{
			Name:      filepath.Base(p),
			MediaType: mediaTypeOf(p, data),
			Bytes:     base64.StdEncoding.EncodeToString(data),
		})
	}
	return out, nil
}

// mediaTypeOf names a file's media type from its extension, else by sniffing its first bytes.
func mediaTypeOf(name string, data []byte) string {
	if t := mime.TypeByExtension(strings.ToLower(filepath.Ext(name))); t != "" {
		return t
	}
	return http.DetectContentType(data) // "application/octet-stream" when it cannot tell
}

func sizeString(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// webviewOrigins is the Origin header the window's webview sends with its requests to the hub (the
// page is served by Wails' asset server, not by the hub). Measured on Linux (WebKitGTK 4.1):
// "wails://wails". macOS (WKWebView) uses the same scheme; Windows (WebView2) cannot use a custom
// scheme and serves the page from http://wails.localhost instead.
func webviewOrigins(goos string) []string {
	if goos == "windows" {
		return []string{"http://wails.localhost"}
	}
	return []string{"wails://wails"}
}

// downloadsDir is where the save dialog starts: ~/Downloads when it exists, else the dialog's default.
func downloadsDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	dir := filepath.Join(home, "Downloads")
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir
	}
	return ""
}

// The UI's page background (frontend/src/styles.css, --bg) in its light and dark themes. The window
// paints it before the page loads, so opening the window never flashes another colour.
var (
	lightBackground = [3]uint8{0xf6, 0xf6, 0xf4}
	darkBackground  = [3]uint8{0x10, 0x11, 0x13}
)

// prefersDark guesses whether the webview will pick the UI's dark theme (the page follows
// prefers-color-scheme, which WebKitGTK takes from GTK's settings): GTK_THEME naming a dark
// variant ("Adwaita:dark", "Adwaita-dark"), or ~/.config/gtk-3.0/settings.ini asking for one
// (gtk-application-prefer-dark-theme, or a gtk-theme-name ending in -dark). A wrong guess costs
// only a flash of the other background before the first paint.
func prefersDark(getenv func(string) string, readFile func(string) ([]byte, error)) bool {
	isDark := func(theme string) bool {
		theme = strings.ToLower(strings.TrimSpace(theme))
		return strings.HasSuffix(theme, ":dark") || strings.HasSuffix(theme, "-dark")
	}
	if t := getenv("GTK_THEME"); t != "" {
		return isDark(t)
	}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if home := getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir == "" {
		return false
	}
	ini, err := readFile(filepath.Join(dir, "gtk-3.0", "settings.ini"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(ini), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "gtk-application-prefer-dark-theme":
			if v := strings.ToLower(strings.TrimSpace(v)); v == "1" || v == "true" {
				return true
			}
		case "gtk-theme-name":
			if isDark(strings.Trim(strings.TrimSpace(v), `"`)) {
				return true
			}
		}
	}
	return false
}

//go:embed fallback
var fallbackFS embed.FS

// withFallback returns the frontend's assets, or, when they hold no index.html (a checkout where
// `npm --prefix frontend run build` has not run), a built-in page saying so: the window is never blank.
func withFallback(assets fs.FS) (fs.FS, bool) {
	if assets != nil {
		if _, err := fs.Stat(assets, "index.html"); err == nil {
			return assets, false
		}
	}
	sub, err := fs.Sub(fallbackFS, "fallback")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	return sub, true
}
