package uiapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/hub"
)

type accessKey struct {
	ID, Name, KeyPrefix, CreatedAt, LastUsedAt string
}

type issued struct {
	Principal accessKey
	Key       string
}

// tokenFor asks the hub's token endpoint for a token the way `curl -u name:key` does (HTTP Basic),
// and returns the status and the OAuth2 error code.
func tokenFor(t *testing.T, h *hub.Hub, name, key string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", h.Agent.BaseURL+auth.TokenPath, strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(name, key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode == http.StatusOK && body.AccessToken == "" {
		t.Fatal("200 without an access_token")
	}
	return resp.StatusCode, body.Error
}

func listAccess(c *ui) []accessKey {
	c.t.Helper()
	f := c.call("access.list", nil)
	if f.Error != nil {
		c.t.Fatalf("access.list: %s", f.Error.Message)
	}
	var got struct{ Principals []accessKey }
	if err := json.Unmarshal(f.Result, &got); err != nil {
		c.t.Fatal(err)
	}
	return got.Principals
}

func awaitAccess(c *ui, name string) {
	c.t.Helper()
	c.await("access", func(d json.RawMessage) bool {
		var p struct{ Name string }
		json.Unmarshal(d, &p)
		return p.Name == name
	})
}

// Settings → Access end to end at the gateway: a key made in one window is listed (never the key
// itself) in both, buys a token at /oauth/token, and stops working when rotated or revoked.
func TestAccessKeysAddRotateRemove(t *testing.T) {
	h := startHub(t)
	c, other := dial(t, h), dial(t, h)
	if got := listAccess(c); len(got) != 0 {
		t.Fatalf("a new hub lists %+v", got)
	}

	var added issued
	c.result("access.add", map[string]string{"name": "ci-bot"}, &added)
	if added.Principal.ID != "agent://ci-bot" || added.Principal.Name != "ci-bot" || !strings.HasPrefix(added.Key, "ahk_") ||
		!strings.HasPrefix(added.Key, added.Principal.KeyPrefix) || added.Principal.CreatedAt == "" {
		t.Fatalf("access.add: %+v", added)
	}
	awaitAccess(other, "ci-bot") // the other window hears of it
	raw := other.call("access.list", nil)
	if strings.Contains(string(raw.Result), added.Key[len(added.Principal.KeyPrefix):]) {
		t.Fatalf("access.list shows the key: %s", raw.Result)
	}
	list := listAccess(other)
	if len(list) != 1 || list[0].Name != "ci-bot" || list[0].KeyPrefix != added.Principal.KeyPrefix || list[0].LastUsedAt != "" {
		t.Fatalf("access.list: %+v", list)
	}

	if status, code := tokenFor(t, h, "ci-bot", added.Key); status != http.StatusOK {
		t.Fatalf("token with the new key: %d %s", status, code)
	}
	awaitAccess(other, "ci-bot") // used: "last used" moved
	if list := listAccess(other); list[0].LastUsedAt == "" {
		t.Fatalf("after a token request lastUsedAt is empty: %+v", list)
	}

	var rotated issued
	c.result("access.rotate", map[string]string{"name": "ci-bot"}, &rotated)
	if rotated.Key == added.Key || !strings.HasPrefix(rotated.Key, "ahk_") || rotated.Principal.KeyPrefix != rotated.Key[:len(rotated.Principal.KeyPrefix)] {
		t.Fatalf("access.rotate: %+v", rotated)
	}
	if status, code := tokenFor(t, h, "ci-bot", added.Key); status != http.StatusUnauthorized || code != "invalid_client" {
		t.Fatalf("the rotated-out key: %d %s, want 401 invalid_client", status, code)
	}
	if status, code := tokenFor(t, h, "ci-bot", rotated.Key); status != http.StatusOK {
		t.Fatalf("the new key: %d %s", status, code)
	}

	c.result("access.remove", map[string]string{"name": "ci-bot"}, nil)
	if status, code := tokenFor(t, h, "ci-bot", rotated.Key); status != http.StatusUnauthorized || code != "invalid_client" {
		t.Fatalf("a revoked key: %d %s, want 401 invalid_client", status, code)
	}
	if got := listAccess(other); len(got) != 0 {
		t.Fatalf("after remove: %+v", got)
	}
}

func TestAccessErrorsUseTheGatewayCodes(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	c.result("access.add", map[string]string{"name": "bot"}, nil)
	cases := []struct {
		method string
		params any
		code   string
	}{
		{"access.add", map[string]string{"name": "Bad Name"}, "invalid_params"},
		{"access.add", map[string]string{"name": ""}, "invalid_params"},
		{"access.add", map[string]string{"name": strings.Repeat("a", auth.MaxNameLen+1)}, "invalid_params"},
		{"access.add", map[string]string{"name": "bot"}, "conflict"},
		{"access.add", map[string]any{"name": "x", "key": "mine"}, "invalid_params"},
		{"access.rotate", map[string]string{"name": "nobody"}, "not_found"},
		{"access.remove", map[string]string{"name": "nobody"}, "not_found"},
		{"access.setPolicy", map[string]string{"anonymous": "everyone"}, "invalid_params"},
		{"access.setPolicy", map[string]string{}, "invalid_params"},
	}
	for _, tc := range cases {
		f := c.call(tc.method, tc.params)
		if f.Error == nil || f.Error.Code != tc.code {
			t.Errorf("%s %v: %+v, want %s", tc.method, tc.params, f.Error, tc.code)
		}
	}
}

func TestAccessPolicyIsStoredAndPushed(t *testing.T) {
	h := startHub(t)
	c, other := dial(t, h), dial(t, h)
	var got struct{ Anonymous string }
	c.result("access.policy", nil, &got)
	if got.Anonymous != "send" {
		t.Fatalf("default policy %q", got.Anonymous)
	}
	for _, p := range []string{"off", "read-public", "send", "off"} {
		c.result("access.setPolicy", map[string]string{"anonymous": p}, &got)
		if got.Anonymous != p {
			t.Fatalf("setPolicy %s answered %q", p, got.Anonymous)
		}
		awaitAccess(other, "")
		other.result("access.policy", nil, &got)
		if got.Anonymous != p {
			t.Fatalf("the other window reads %q after %s", got.Anonymous, p)
		}
	}
	if h.Auth.AnonymousPolicy() != auth.AnonymousOff {
		t.Fatalf("the hub's policy is %q", h.Auth.AnonymousPolicy())
	}
}
