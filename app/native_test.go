package app

import (
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCheckOpenURL(t *testing.T) {
	for _, ok := range []string{"https://a2a-protocol.org/", "http://127.0.0.1:47470/.well-known/agent-card.json", " https://example.com/x?y=1#z "} {
		if _, err := checkOpenURL(ok); err != nil {
			t.Errorf("checkOpenURL(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "file:///etc/passwd", "javascript:alert(1)", "mailto:a@b.c", "wails://wails/",
		"ftp://example.com", "https://user:pw@example.com/", "//example.com", "https:///nohost", "https://" + strings.Repeat("a", 5000)} {
		if u, err := checkOpenURL(bad); err == nil {
			t.Errorf("checkOpenURL(%q) = %q, want an error", bad, u)
		}
	}
}

func TestDecodeBase64(t *testing.T) {
	want := []byte("hello, world!")
	for _, s := range []string{base64.StdEncoding.EncodeToString(want), base64.RawStdEncoding.EncodeToString(want)} {
		got, err := decodeBase64(s)
		if err != nil || string(got) != string(want) {
			t.Errorf("decodeBase64(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := decodeBase64("not base64!"); err == nil {
		t.Error("decodeBase64 accepted garbage")
	}
}

func TestSafeFileName(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf":             "report.pdf",
		"../../etc/passwd":       "_.._etc_passwd",
		"..hidden":               "hidden",
		"a\x00b\nc.txt":          "abc.txt",
		`C:\Users\x.txt`:         "C__Users_x.txt",
		"   ":                    "download",
		"":                       "download",
		"ünïcødé 名前.md":          "ünïcødé 名前.md",
		strings.Repeat("x", 300): strings.Repeat("x", 200),
	} {
		if got := safeFileName(in); got != want {
			t.Errorf("safeFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(p, []byte("new contents")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "new contents" {
		t.Fatalf("file holds %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary file left behind: %v", entries)
	}
	if err := writeFile(filepath.Join(dir, "missing", "x"), nil); err == nil {
		t.Fatal("writeFile into a missing directory succeeded")
	}
}

func TestReadPicked(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("a", size)), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := write("notes.txt", 10)
	png := filepath.Join(dir, "noext")
	os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n0000"), 0o600)

	got, err := readPicked([]string{small, png})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "notes.txt" || !strings.HasPrefix(got[0].MediaType, "text/plain") ||
		got[0].Bytes != base64.StdEncoding.EncodeToString([]byte(strings.Repeat("a", 10))) {
		t.Fatalf("got %+v", got)
	}
	if got[1].MediaType != "image/png" {
		t.Errorf("sniffed media type = %q, want image/png", got[1].MediaType)
	}

	if got, err := readPicked(nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("readPicked(nil) = %v, %v; want an empty list", got, err)
	}

	big := write("big.bin", MaxFileBytes+1)
	if _, err := readPicked([]string{big}); !errors.Is(err, ErrFileTooLarge) || !strings.Contains(err.Error(), "big.bin") {
		t.Errorf("over the limit: err = %v", err)
	}
	half1, half2 := write("h1.bin", MaxFileBytes/2+1), write("h2.bin", MaxFileBytes/2+1)
	if _, err := readPicked([]string{half1, half2}); !errors.Is(err, ErrFileTooLarge) {
		t.Errorf("together over the limit: err = %v", err)
	}
	if _, err := readPicked([]string{dir}); err == nil {
		t.Error("a directory was accepted")
	}
}

func TestWebviewOrigins(t *testing.T) {
	if got := webviewOrigins("linux"); len(got) != 1 || got[0] != "wails://wails" {
		t.Errorf("linux: %v", got)
	}
	if got := webviewOrigins("darwin"); len(got) != 1 || got[0] != "wails://wails" {
		t.Errorf("darwin: %v", got)
	}
	if got := webviewOrigins("windows"); len(got) != 1 || got[0] != "http://wails.localhost" {
		t.Errorf("windows: %v", got)
	}
}

func TestWithFallback(t *testing.T) {
	built := fstest.MapFS{"index.html": {Data: []byte("<p>app</p>")}}
	if got, fb := withFallback(built); fb || got == nil {
		t.Errorf("a built frontend was replaced")
	}
	for name, assets := range map[string]fs.FS{"nil": nil, "gitkeep only": fstest.MapFS{".gitkeep": {}}} {
		got, fb := withFallback(assets)
		if !fb {
			t.Errorf("%s: no fallback", name)
			continue
		}
		page, err := fs.ReadFile(got, "index.html")
		if err != nil || !strings.Contains(string(page), "npm --prefix frontend run build") {
			t.Errorf("%s: fallback page = %q, %v", name, page, err)
		}
	}
}

func TestPrefersDark(t *testing.T) {
	files := map[string]string{
		"/home/a/.config/gtk-3.0/settings.ini": "[Settings]\ngtk-application-prefer-dark-theme=1\n",
		"/home/b/.config/gtk-3.0/settings.ini": "[Settings]\ngtk-theme-name=Adwaita-dark\n",
		"/home/c/.config/gtk-3.0/settings.ini": "[Settings]\ngtk-theme-name=Adwaita\ngtk-application-prefer-dark-theme=false\n",
		"/xdg/gtk-3.0/settings.ini":            "[Settings]\ngtk-application-prefer-dark-theme = true\n",
	}
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"GTK_THEME": "Adwaita:dark"}, true},
		{map[string]string{"GTK_THEME": "Adwaita-dark"}, true},
		{map[string]string{"GTK_THEME": "Adwaita", "HOME": "/home/a"}, false}, // GTK_THEME wins
		{map[string]string{"HOME": "/home/a"}, true},
		{map[string]string{"HOME": "/home/b"}, true},
		{map[string]string{"HOME": "/home/c"}, false},
		{map[string]string{"HOME": "/home/none"}, false},
		{map[string]string{"HOME": "/home/c", "XDG_CONFIG_HOME": "/xdg"}, true},
	} {
		if got := prefersDark(func(k string) string { return c.env[k] }, read); got != c.want {
			t.Errorf("prefersDark(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}
