package push

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The delivery client checks the address it dials, not the URL's name: a remote caller's client
// cannot reach loopback even through "localhost"; a local caller's can.
func TestClientChecksDialedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, url := range []string{srv.URL, "http://localhost:" + port} {
		_, err := newClient(5*time.Second, false).Get(url)
		if !errors.Is(err, ErrTargetRefused) {
			t.Errorf("remote client to %s: %v, want ErrTargetRefused", url, err)
		}
		resp, err := newClient(5*time.Second, true).Get(url)
		if err != nil {
			t.Errorf("local client to %s: %v", url, err)
			continue
		}
		resp.Body.Close()
	}
	// Redirects are not followed: the answer is the redirect itself.
	redir := httptest.NewServer(http.RedirectHandler("http://169.254.169.254/", http.StatusFound))
	defer redir.Close()
	resp, err := newClient(5*time.Second, true).Get(redir.URL)
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("redirect: %v, %v; want the 302 itself", resp, err)
	}
	resp.Body.Close()
}
