package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/scenario"
	"github.com/agenthub/agenthub/backend/store"
)

const scenarioUsage = `Usage:
  agenthub scenario run FILE... [--agent URL|ID] [--key KEY] [--junit out.xml] [--json]
      [--data DIR | --database URL] [--secrets auto|keyring|file|database] [--secrets-key-file FILE]

Runs saved scenarios (YAML or JSON) against an A2A agent with the hub's own client, without the
window or a running hub: one line per step and a summary, or with --json one JSON report.
--agent overrides each file's agent: a card or base URL, or the id of an agent added to the hub in
--data (or --database), whose saved credentials then apply. --key is an API key or bearer token for
the card's schemes; it is masked in every report. --junit writes JUnit XML too.

Exit codes: 0 every expectation held; 1 one failed (or the agent could not be reached);
2 bad usage or a file refused (file:line: reason), before anything is sent.

  agenthub scenario record [CONVERSATION-ID] [--out FILE] [--data DIR | --database URL]
      [--secrets auto|keyring|file|database] [--secrets-key-file FILE]

Writes a conversation stored in the hub as a scenario file (to standard output, or --out FILE):
a step per message you sent, expecting what the agent answered then. Without an id, lists the
stored conversations with their ids. Works while the hub runs.
`

// scenarioCmd is `agenthub scenario`.
func scenarioCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "record" {
		return scenarioRecord(args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "run" {
		if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
			fmt.Fprint(stdout, scenarioUsage)
			return 0
		}
		fmt.Fprint(stderr, scenarioUsage)
		return 2
	}
	fs := flag.NewFlagSet("scenario run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, scenarioUsage) }
	agent := fs.String("agent", "", "the agent: a card or base `URL`, or an added agent's id (overrides the files')")
	key := fs.String("key", "", "API key or bearer token `KEY` for the agent (masked in reports)")
	junit := fs.String("junit", "", "also write JUnit XML to `file`")
	asJSON := fs.Bool("json", false, "print a JSON report instead of lines")
	dataDir := fs.String("data", "", "the hub's data `directory`, for an added agent's id (default: the per-user config directory)")
	database := fs.String("database", os.Getenv(databaseEnv), "the hub's PostgreSQL `URL`, for an added agent's id")
	secretsMode := fs.String("secrets", "", "where the hub keeps credentials, for an added agent's id: auto, keyring, file or database (default: auto, or database with --database)")
	keyFile := fs.String("secrets-key-file", "", "the `file` of the key sealing credentials in the database (with --database)")
	files, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return 2
	}
	if len(files) == 0 {
		fmt.Fprint(stderr, "agenthub scenario run: no FILE\n\n"+scenarioUsage)
		return 2
	}
	// Every file is checked before anything is sent to anyone.
	var scenarios []*scenario.Scenario
	refused := false
	for _, f := range files {
		s, err := scenario.Load(f)
		if err != nil {
			fmt.Fprintln(stderr, "agenthub: refused:", err)
			refused = true
			continue
		}
		scenarios = append(scenarios, s)
	}
	if refused {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	added := &addedAgents{dataDir: *dataDir, database: *database, mode: *secretsMode, keyFile: *keyFile}
	defer added.close()
	opt := scenario.Options{Agent: *agent, Key: *key, Connect: func(ctx context.Context, a string, force scenario.Force, key string) (*agents.Conn, error) {
		if isURL(a) {
			return scenario.ConnectURL(ctx, a, force, key)
		}
		return added.connect(ctx, a, force, key)
	}}
	var results []*scenario.Result
	for _, s := range scenarios {
		results = append(results, scenario.Run(ctx, s, opt))
	}
	if *asJSON {
		err = scenario.WriteJSON(stdout, results, *key)
	} else {
		err = scenario.WriteLines(stdout, results, *key)
	}
	if err == nil && *junit != "" {
		var f *os.File
		if f, err = os.Create(*junit); err == nil {
			err = errors.Join(scenario.WriteJUnit(f, results, *key), f.Close())
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	if _, failed := scenario.Failures(results); failed > 0 {
		return 1
	}
	return 0
}

func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// addedAgents reaches agents added to a hub: their card as last fetched and their saved credentials,
// read from the hub's database (opened at the first use, read only in effect).
type addedAgents struct {
	dataDir, database, mode, keyFile string
	db                               *store.DB
	registry                         *agents.Registry
	secrets                          credentials.Secrets
}

func (a *addedAgents) open(ctx context.Context) error {
	if a.registry != nil {
		return nil
	}
	target, mode := a.database, "database"
	if target == "" {
		dir := a.dataDir
		if dir == "" {
			var err error
			if dir, err = hub.DefaultDataDir(); err != nil {
				return err
			}
		}
		a.dataDir, target, mode = dir, hub.HubDBPath(dir), "auto"
	} else if !store.IsPostgresURL(target) {
		return fmt.Errorf("--database wants a postgres:// URL, not %q", store.Redacted(target))
	}
	db, err := store.Open(target)
	if err != nil {
		return err
	}
	reg, err := agents.OpenRegistry(ctx, db, nil, nil)
	if err != nil {
		db.Close()
		return err
	}
	if a.mode != "" {
		mode = a.mode
	}
	sec, err := credentials.OpenSecretsWith(ctx, credentials.SecretsConfig{DataDir: a.dataDir, Mode: mode, DB: db, KeyFile: a.keyFile})
	if err != nil {
		db.Close()
		return err
	}
	a.db, a.registry, a.secrets = db, reg, sec
	return nil
}

func (a *addedAgents) connect(ctx context.Context, id string, force scenario.Force, key string) (*agents.Conn, error) {
	if err := a.open(ctx); err != nil {
		return nil, fmt.Errorf("agent %q is not a URL, and the hub's added agents cannot be read: %w", id, err)
	}
	rem, err := a.registry.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("agent %q: %w", id, err)
	}
	if !rem.Trust.Usable() { // as the hub's own Clients refuse it
		return nil, fmt.Errorf("agent %q (%s): its card is not trusted; review it in the hub first", id, rem.Name)
	}
	sec := a.secrets
	if key != "" {
		sec = scenario.KeyStore(id, rem.Card, key)
	}
	return scenario.DialCard(ctx, rem.Card, force, credentials.NewHTTPClient(id, rem.Card, sec, nil))
}

func (a *addedAgents) close() {
	if a.db != nil {
		a.db.Close()
	}
}

// scenarioRecord is agenthub scenario record: a stored conversation as a scenario file.
func scenarioRecord(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scenario record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, scenarioUsage) }
	out := fs.String("out", "", "write the scenario to `file` instead of standard output")
	dataDir := fs.String("data", "", "the hub's data `directory` (default: the per-user config directory)")
	database := fs.String("database", os.Getenv(databaseEnv), "the hub's PostgreSQL `URL`")
	secretsMode := fs.String("secrets", "", "where the hub keeps credentials: auto, keyring, file or database (as for serve)")
	keyFile := fs.String("secrets-key-file", "", "the `file` of the key sealing credentials in the database (with --database)")
	ids, err := parseInterspersed(fs, args)
	if err != nil || len(ids) > 1 {
		if err == nil {
			fmt.Fprint(stderr, "agenthub scenario record: one conversation at a time\n\n"+scenarioUsage)
		}
		return 2
	}
	ctx := context.Background()
	added := &addedAgents{dataDir: *dataDir, database: *database, mode: *secretsMode, keyFile: *keyFile}
	defer added.close()
	if err := added.open(ctx); err != nil {
		fmt.Fprintln(stderr, "agenthub: the hub's data cannot be read:", err)
		return 1
	}
	if len(ids) == 0 {
		list, err := chats.Conversations(ctx, added.db)
		if err != nil {
			fmt.Fprintln(stderr, "agenthub:", err)
			return 1
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tAGENT\tUPDATED\tTITLE")
		for _, c := range list {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, c.AgentID, c.UpdatedAt.Local().Format("2006-01-02 15:04"), c.Title)
		}
		tw.Flush()
		return 0
	}
	c, entries, err := chats.Transcript(ctx, added.db, ids[0])
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	agent := c.AgentID // the added agent's id, which scenario run reads from the hub; its card URL when known
	if rem, err := added.registry.Get(ctx, c.AgentID); err == nil && rem.CardURL != "" {
		agent = rem.CardURL
	}
	file, err := scenario.Record(c, entries, agent)
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	if *out == "" {
		_, err = stdout.Write(file)
	} else {
		err = os.WriteFile(*out, file, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	return 0
}
