package hub_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store"
)

// selfSigned writes a certificate for name (and 127.0.0.1) and its key as PEM files in dir, and
// returns a pool that trusts it.
func selfSigned(t *testing.T, dir, name string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "hub.crt"), filepath.Join(dir, "hub.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestLeavingLoopback: the hub refuses an address beyond loopback while callers without a key may
// use it; with anonymous access off it listens there, over HTTPS, under its public name: the card,
// the token endpoint and the tokens name that URL, the name is a Host it answers to (others are
// refused), a caller without a key is refused and one with a token gets in, and the UI link stays on
// this computer.
func TestLeavingLoopback(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	cfg := hubtest.Storage(t, hub.Config{DataDir: dir, Addr: fmt.Sprintf("0.0.0.0:%d", port), NoDemo: true, Version: "test", Secrets: "file",
		Logger: slog.New(slog.DiscardHandler)})

	if _, err := hub.Start(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "refusing to listen") || !strings.Contains(err.Error(), "anonymous access off") {
		t.Fatalf("start on 0.0.0.0 with anonymous access on: %v", err)
	}
	// The gRPC binding follows the same rule: loopback HTTP with gRPC beyond it is refused too.
	grpcOut := cfg
	grpcOut.Addr, grpcOut.GRPCAddr = "127.0.0.1:0", "0.0.0.0:0"
	if _, err := hub.Start(t.Context(), grpcOut); err == nil || !strings.Contains(err.Error(), "refusing to listen on 0.0.0.0:0") {
		t.Fatalf("gRPC on 0.0.0.0 with anonymous access on: %v", err)
	}

	// As `agenthub principals anonymous off` and `principals add` do, with the hub stopped.
	db, err := store.Open(hubtest.Target(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := auth.OpenPrincipals(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.SetAnonymousPolicy(t.Context(), auth.AnonymousOff); err != nil {
		t.Fatal(err)
	}
	_, key, err := ps.Add(t.Context(), "remote")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	const name = "hub.test"
	public := fmt.Sprintf("https://%s:%d", name, port)
	certFile, keyFile, pool := selfSigned(t, t.TempDir(), name)
	cfg.TLSCert, cfg.TLSKey, cfg.PublicURL = certFile, keyFile, public
	grpcPort := freePort(t)
	cfg.GRPCAddr = fmt.Sprintf("0.0.0.0:%d", grpcPort)
	h, err := hub.Start(t.Context(), cfg)
	if err != nil {
		t.Fatalf("start on 0.0.0.0 with anonymous access off: %v", err)
	}
	t.Cleanup(func() { h.Stop() })

	// A client on another computer: it resolves hub.test to this machine and trusts the certificate.
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			_, p, _ := net.SplitHostPort(addr)
			return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort("127.0.0.1", p))
		},
	}}
	res, err := client.Get(public + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	body := string(raw)
	var card struct {
		URL             string `json:"url"`
		SecuritySchemes map[string]struct {
			Flows struct {
				ClientCredentials struct {
					TokenURL string `json:"tokenUrl"`
				} `json:"clientCredentials"`
			} `json:"flows"`
		} `json:"securitySchemes"`
	}
	if res.StatusCode != 200 || json.Unmarshal([]byte(body), &card) != nil || card.URL != public+"/a2a" ||
		card.SecuritySchemes["oauth2"].Flows.ClientCredentials.TokenURL != public+auth.TokenPath {
		t.Fatalf("card under the public name: HTTP %d %s", res.StatusCode, body)
	}

	// Another name pointing here (DNS rebinding) is refused.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, public+"/.well-known/agent-card.json", nil)
	req.Host = "rebind.attacker.example"
	if res, err := client.Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("a foreign Host: %v %v", res, err)
	}

	post := func(headers http.Header) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, public+"/a2a",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range headers {
			req.Header[k] = v
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if status, body := post(nil); status != http.StatusUnauthorized || !strings.Contains(body, "-32030") {
		t.Fatalf("no credential from another computer: HTTP %d %s", status, body)
	}
	oauth := clientcredentials.Config{ClientID: "remote", ClientSecret: key, TokenURL: public + auth.TokenPath}
	tok, err := oauth.Token(context.WithValue(t.Context(), oauth2.HTTPClient, client))
	if err != nil {
		t.Fatal(err)
	}
	if status, body := post(http.Header{"Authorization": {"Bearer " + tok.AccessToken}}); status != http.StatusOK {
		t.Fatalf("a token: HTTP %d %s", status, body)
	}
	var claims struct {
		Iss string `json:"iss"`
	}
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok.AccessToken, ".")[1])
	if json.Unmarshal(payload, &claims) != nil || claims.Iss != public {
		t.Fatalf("the token's issuer is %q, want %q", claims.Iss, public)
	}

	// gRPC, over TLS with the same certificate, under the public name: the card lists it there, a call
	// without a credential is refused, one with the token is taken; a plaintext client gets nothing.
	if !strings.Contains(body, fmt.Sprintf(`"url":"%s:%d"`, name, grpcPort)) {
		t.Fatalf("the card does not list gRPC at %s:%d: %s", name, grpcPort, body)
	}
	grpcCall := func(creds credentials.TransportCredentials, md metadata.MD) error {
		conn, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", grpcPort), grpc.WithTransportCredentials(creds), grpc.WithAuthority(fmt.Sprintf("%s:%d", name, grpcPort)))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(t.Context(), md), 10*time.Second)
		defer cancel()
		_, err = a2apb.NewA2AServiceClient(conn).ListTasks(ctx, &a2apb.ListTasksRequest{})
		return err
	}
	tlsCreds := credentials.NewTLS(&tls.Config{RootCAs: pool})
	if err := grpcCall(tlsCreds, nil); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("gRPC without a credential from another computer: %v", err)
	}
	if err := grpcCall(tlsCreds, metadata.Pairs("authorization", "Bearer "+tok.AccessToken)); err != nil {
		t.Fatalf("gRPC with a token: %v", err)
	}
	if err := grpcCall(insecure.NewCredentials(), metadata.Pairs("authorization", "Bearer "+tok.AccessToken)); err == nil {
		t.Fatal("a plaintext gRPC call to the TLS port was answered")
	}

	if u, _ := url.Parse(h.UIURL()); u.Hostname() != "127.0.0.1" || u.Scheme != "https" {
		t.Fatalf("the UI link %s is not on this computer", h.UIURL())
	}
}
