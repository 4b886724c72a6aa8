package agents_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

func openRegistry(t *testing.T, path string) (*agents.Registry, *store.DB) {
	t.Helper()
	db, err := store.Open(storetest.Target(t, path))
	if err != nil {
		t.Fatal(err)
	}
	r, err := agents.OpenRegistry(t.Context(), db, nil, bus.New())
	if err != nil {
		t.Fatal(err)
	}
	return r, db
}

const draftCard = `{"name": "Draft agent", "version": "0.1", "url": "http://127.0.0.1:1/", "capabilities": {}, "skills": [{"id": "a", "name": "A"}]}`

// cardServer serves documents by path; everything else is 404.
func cardServer(t *testing.T, docs map[string]string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(doc))
	}))
	t.Cleanup(s.Close)
	return s
}

func TestAddResolvesTheCardAtEitherWellKnownPathOrAtItsOwnURL(t *testing.T) {
	r, _ := openRegistry(t, filepath.Join(t.TempDir(), "hub.db"))
	v1 := cardServer(t, map[string]string{"/.well-known/agent-card.json": `{"name": "Current agent", "version": "1"}`,
		"/.well-known/agent.json": draftCard})
	// AgentVault serves its card at the base URL's /agent-card.json.
	vault := cardServer(t, map[string]string{"/agent-card.json": `{"name": "Vault agent"}`})
	draft := cardServer(t, map[string]string{"/api/.well-known/agent.json": draftCard})
	custom := cardServer(t, map[string]string{"/cards/weather.json": `{"name": "Weather"}`})

	cases := []struct{ input, wantCardURL, wantName string }{
		{v1.URL, v1.URL + "/.well-known/agent-card.json", "Current agent"},
		{draft.URL + "/api/", draft.URL + "/api/.well-known/agent.json", "Draft agent"},
		{custom.URL + "/cards/weather.json", custom.URL + "/cards/weather.json", "Weather"},
		{vault.URL + "/", vault.URL + "/agent-card.json", "Vault agent"},
	}
	for _, c := range cases {
		got, err := r.Add(t.Context(), c.input)
		if err != nil {
			t.Fatalf("add %s: %v", c.input, err)
		}
		if got.CardURL != c.wantCardURL || got.Name != c.wantName || got.FetchError != "" || got.ID == "" {
			t.Fatalf("add %s: %+v", c.input, got)
		}
	}
	// Adding the same agent again refreshes it instead of duplicating it.
	again, err := r.Add(t.Context(), v1.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	list, _ := r.List(t.Context())
	if len(list) != 4 || list[0].ID != again.ID {
		t.Fatalf("after adding twice: %+v", list)
	}
	if rep := agents.CheckCard(list[1].Card); rep.Versions[0] != "0.1" || len(rep.Problems) != 0 {
		t.Fatalf("the draft card as stored: %+v", rep)
	}
}

func TestAddRefusesWhatIsNotAnAgentCardAndSaysWhereItLooked(t *testing.T) {
	r, _ := openRegistry(t, filepath.Join(t.TempDir(), "hub.db"))
	html := cardServer(t, map[string]string{"/.well-known/agent-card.json": "<html>hello</html>", "/.well-known/agent.json": `{"no": "name"}`})
	huge := cardServer(t, map[string]string{"/.well-known/agent-card.json": `{"name": "` + strings.Repeat("x", agents.MaxCardBytes) + `"}`})
	empty := cardServer(t, nil)
	for _, bad := range []string{"ftp://example.com/", "/relative", "not a url", ""} {
		if _, err := r.Add(t.Context(), bad); !errors.Is(err, agents.ErrBadURL) {
			t.Errorf("add %q: %v", bad, err)
		}
	}
	for _, s := range []*httptest.Server{html, huge, empty} {
		_, err := r.Add(t.Context(), s.URL)
		if !errors.Is(err, agents.ErrNoCard) || !strings.Contains(err.Error(), "agent-card.json") || !strings.Contains(err.Error(), "agent.json") {
			t.Errorf("add %s: %v", s.URL, err)
		}
	}
	if list, _ := r.List(t.Context()); len(list) != 0 {
		t.Fatalf("refused agents were stored: %+v", list)
	}
}

func TestRefreshKeepsTheLastCardWhenTheAgentIsGoneAndEverythingSurvivesAReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hub.db")
	r, db := openRegistry(t, path)
	up := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !up {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"name": "Flaky"}`))
	}))
	defer srv.Close()
	added, err := r.Add(t.Context(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	up = false
	got, err := r.Refresh(t.Context(), added.ID)
	if err == nil || !strings.Contains(got.FetchError, "HTTP 503") || string(got.Card) != `{"name": "Flaky"}` || !got.FetchedAt.Equal(added.FetchedAt) {
		t.Fatalf("refresh while down: %v %+v", err, got)
	}
	db.Close()

	r, db = openRegistry(t, path)
	defer db.Close()
	got, err = r.Get(t.Context(), added.ID)
	if err != nil || got.FetchError == "" || got.Name != "Flaky" {
		t.Fatalf("after reopen: %v %+v", err, got)
	}
	up = true
	if got, err = r.Refresh(t.Context(), added.ID); err != nil || got.FetchError != "" {
		t.Fatalf("refresh when back: %v %+v", err, got)
	}
	if err := r.Remove(t.Context(), added.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(t.Context(), added.ID); !errors.Is(err, agents.ErrNotFound) {
		t.Fatalf("removing twice: %v", err)
	}
	if _, err := r.Refresh(t.Context(), "nope"); !errors.Is(err, agents.ErrNotFound) {
		t.Fatalf("refresh unknown: %v", err)
	}
}

// A card URL that redirects to another origin is not followed: that origin's card would be
// registered under this URL. The error names where it leads, so the owner can add that instead.
// Redirects within the origin (a moved well-known path) are followed.
func TestCardFetchFollowsRedirectsWithinItsOriginOnly(t *testing.T) {
	r, _ := openRegistry(t, filepath.Join(t.TempDir(), "hub.db"))
	other := cardServer(t, map[string]string{"/.well-known/agent-card.json": `{"name": "Somebody else"}`})
	var moved atomic.Bool
	moved.Store(true)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch {
		case req.URL.Path == "/.well-known/agent.json":
			http.Redirect(w, req, "/.well-known/agent-card.json", http.StatusMovedPermanently)
		case req.URL.Path == "/.well-known/agent-card.json" && moved.Load():
			http.Redirect(w, req, other.URL+"/.well-known/agent-card.json", http.StatusFound)
		case req.URL.Path == "/.well-known/agent-card.json":
			w.Write([]byte(`{"name": "Mine"}`))
		default:
			http.NotFound(w, req)
		}
	}))
	defer redirecting.Close()

	_, err := r.Add(t.Context(), redirecting.URL)
	if !errors.Is(err, agents.ErrCardRedirected) || !errors.Is(err, agents.ErrNoCard) ||
		!strings.Contains(err.Error(), other.URL+"/.well-known/agent-card.json") || !strings.Contains(err.Error(), "add that URL instead") {
		t.Fatalf("adding a URL whose card is on another host: %v", err)
	}
	if list, _ := r.List(t.Context()); len(list) != 0 {
		t.Fatalf("another host's card was registered: %+v", list)
	}

	// Same origin: the legacy path moved to the current one.
	moved.Store(false)
	got, err := r.Add(t.Context(), redirecting.URL+"/.well-known/agent.json")
	if err != nil || got.Name != "Mine" {
		t.Fatalf("a redirect within the origin: %v %+v", err, got)
	}
	// A card that moves to another host later: Refresh keeps the last card and says why.
	moved.Store(true)
	got, err = r.Refresh(t.Context(), got.ID)
	if !errors.Is(err, agents.ErrCardRedirected) || got.Name != "Mine" || !strings.Contains(got.FetchError, other.URL) {
		t.Fatalf("refresh after the card moved away: %v %+v", err, got)
	}
}

// An agent of this process is pinned under its own id: a row added by hand for the same card is
// replaced (its id returned, so conversations can follow), a new port rewrites the row, and adding
// the pinned card's URL later finds the pinned row.
func TestPinKeepsOneRowPerLocalAgent(t *testing.T) {
	r, _ := openRegistry(t, filepath.Join(t.TempDir(), "hub.db"))
	card := `{"name": "Demo", "version": "1"}`
	first := cardServer(t, map[string]string{"/.well-known/agent-card.json": card})
	byHand, err := r.Add(t.Context(), first.URL)
	if err != nil {
		t.Fatal(err)
	}
	displaced, err := r.Pin(t.Context(), "demo", first.URL+"/.well-known/agent-card.json", []byte(card))
	if err != nil || displaced != byHand.ID {
		t.Fatalf("pin over a row added by hand: displaced %q, %v; want %q", displaced, err, byHand.ID)
	}
	second := cardServer(t, map[string]string{"/.well-known/agent-card.json": card})
	if displaced, err = r.Pin(t.Context(), "demo", second.URL+"/.well-known/agent-card.json", []byte(card)); err != nil || displaced != "" {
		t.Fatalf("pin on a new port: displaced %q, %v", displaced, err)
	}
	again, err := r.Add(t.Context(), second.URL)
	if err != nil || again.ID != "demo" {
		t.Fatalf("adding the pinned agent's URL: %+v, %v", again, err)
	}
	list, err := r.List(t.Context())
	if err != nil || len(list) != 1 || list[0].ID != "demo" || list[0].CardURL != second.URL+"/.well-known/agent-card.json" || list[0].Name != "Demo" {
		t.Fatalf("rows: %+v, %v", list, err)
	}
}
