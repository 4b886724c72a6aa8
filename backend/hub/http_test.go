package hub_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// startHub runs the real hub on loopback with a small built UI.
func startHub(t *testing.T, cfg hub.Config) *hub.Hub {
	t.Helper()
	cfg.DataDir, cfg.Addr, cfg.NoDemo, cfg.Version, cfg.Secrets = t.TempDir(), "127.0.0.1:0", true, "test", "file"
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.UI = fstest.MapFS{
		"index.html":         {Data: []byte("<!doctype html><title>AgentHub</title>")},
		"assets/app.js":      {Data: []byte("console.log('ui')")},
		"assets/app.css":     {Data: []byte("body{}")},
		"assets/img/logo.sv": {Data: []byte("<svg/>")},
	}
	h, err := hub.Start(t.Context(), hubtest.Storage(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	return h
}

func get(t *testing.T, url, host, origin string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestUIFilesListNoDirectory(t *testing.T) {
	h := startHub(t, hub.Config{})
	for _, path := range []string{"/assets/", "/assets", "/assets/img/", "/assets/./", "/assets/img/.."} {
		resp, body := get(t, h.Agent.BaseURL+path, "", "")
		if resp.StatusCode != http.StatusNotFound || strings.Contains(body, "app.js") {
			t.Fatalf("GET %s: HTTP %d %q", path, resp.StatusCode, body)
		}
	}
	for _, path := range []string{"/", "/assets/app.js"} {
		if resp, _ := get(t, h.Agent.BaseURL+path, "", ""); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: HTTP %d", path, resp.StatusCode)
		}
	}
}

// The UI, its files and the cards answer only under the hub's names; names added by configuration
// (a public URL's) are let in.
func TestEveryRouteChecksHostAndOrigin(t *testing.T) {
	h := startHub(t, hub.Config{AllowedHosts: []string{"hub.example"}, UIOrigins: []string{"wails://wails"}})
	port := h.Agent.BaseURL[strings.LastIndex(h.Agent.BaseURL, ":")+1:]
	for _, path := range []string{"/", "/assets/app.js", "/.well-known/agent-card.json", "/ui/ws"} {
		if resp, body := get(t, h.Agent.BaseURL+path, "rebind.attacker.example:"+port, ""); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("GET %s under a rebound Host: HTTP %d %q", path, resp.StatusCode, body)
		}
		if resp, body := get(t, h.Agent.BaseURL+path, "hub.example:"+port, ""); resp.StatusCode == http.StatusForbidden {
			t.Fatalf("GET %s under an allowed Host: %q", path, body)
		}
	}
	for _, path := range []string{"/", "/assets/app.js"} {
		if resp, _ := get(t, h.Agent.BaseURL+path, "", "http://evil.example"); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("GET %s from a foreign origin: HTTP %d", path, resp.StatusCode)
		}
		if resp, _ := get(t, h.Agent.BaseURL+path, "", "wails://wails"); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s from the webview: HTTP %d", path, resp.StatusCode)
		}
	}
}

// An idle keep-alive connection is closed by the server, so idle clients cannot hold every file
// descriptor.
func TestIdleKeepAliveConnectionIsClosed(t *testing.T) {
	h := startHub(t, hub.Config{IdleTimeout: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.Agent.BaseURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(h.Agent.BaseURL, "http://"))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("HTTP %d, close %v: want a kept-alive 200", resp.StatusCode, resp.Close)
	}
	// The deadline only bounds a hang; the server's close is what ends the read.
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	_, err = r.ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the idle connection was never closed")
	}
	if !errors.Is(err, io.EOF) {
		t.Fatalf("read after idling: %v, want the server's close", err)
	}
}

func TestOversizedHeadersAreRefused(t *testing.T) {
	h := startHub(t, hub.Config{})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, h.Agent.BaseURL+"/.well-known/agent-card.json", nil)
	req.Header.Set("X-Padding", strings.Repeat("x", 256<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("HTTP %d, want 431", resp.StatusCode)
	}
}
