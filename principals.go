package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/store"
)

const principalsUsage = `Usage:
  agenthub principals add NAME [--data DIR]     create agent://NAME; prints its API key once, on the last line
  agenthub principals list [--data DIR]         list principals (never their keys)
  agenthub principals rotate NAME [--data DIR]  give NAME a new key; the old key and its tokens stop working
  agenthub principals remove NAME [--data DIR]  remove NAME; its key and tokens stop working
  agenthub principals anonymous [off|read-public|send] [--data DIR]
                                                what callers without a key may do (no value: print it):
                                                off = nothing; read-public = read the public card only;
                                                send = send to the hub and read their own tasks (default,
                                                loopback callers only). Off is needed to listen beyond loopback.

A principal calls the hub with its key as X-Api-Key, or trades it for a bearer token at the hub's
/oauth/token (client_id NAME, client_secret the key). add, rotate, remove and setting the policy
work while AgentHub is stopped (while it runs, use Settings → Access); list and printing the policy
work at any time.

With --database postgres://… (default $AGENTHUB_DATABASE) they work on a team hub's PostgreSQL
database instead of a data directory, at any time: running hubs take a change at their next request.
`

// principals is `agenthub principals`. Exit codes: 0 done, 1 failed, 2 bad usage.
func principals(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		w := stderr
		if len(args) > 0 {
			w = stdout
		}
		fmt.Fprint(w, principalsUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	sub := args[0]
	wantNames := map[string]int{"add": 1, "rotate": 1, "remove": 1, "list": 0, "anonymous": -1}
	want, known := wantNames[sub]
	if !known {
		fmt.Fprintf(stderr, "agenthub principals: unknown command %q\n\n%s", sub, principalsUsage)
		return 2
	}
	fs := flag.NewFlagSet("principals "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, principalsUsage) }
	dataDir := fs.String("data", "", "data `directory` (default: the per-user config directory)")
	database := fs.String("database", os.Getenv(databaseEnv), "the hub's PostgreSQL `URL` (postgres://…; default $"+databaseEnv+"), instead of hub.db in the data directory")
	names, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return 2
	}
	if want < 0 { // anonymous: the policy is optional
		want = min(len(names), 1)
		if len(names) > 1 {
			want = 1
		}
	}
	if len(names) != want {
		fmt.Fprintf(stderr, "agenthub principals %s: takes %d NAME argument(s), got %d\n\n%s", sub, want, len(names), principalsUsage)
		return 2
	}
	var name string // a principal's NAME, or for anonymous the policy
	if want == 1 {
		name = names[0]
		if sub == "anonymous" {
			if !auth.AnonymousPolicy(name).Valid() {
				fmt.Fprintf(stderr, "agenthub principals anonymous: %v, not %q\n", auth.ErrBadPolicy, name)
				return 2
			}
		} else if err := auth.ValidName(name); err != nil {
			fmt.Fprintf(stderr, "agenthub principals %s: %q: %v\n", sub, name, err)
			return 2
		}
	}
	if *database != "" {
		// PostgreSQL: no file lock to take, and none needed. A change is a transaction like the
		// running replicas' own, and they read principals from the database at each request.
		if !store.IsPostgresURL(*database) {
			fmt.Fprintf(stderr, "agenthub principals: --database wants a postgres:// URL, not %q\n", store.Redacted(*database))
			return 2
		}
		if err := runPrincipals(context.Background(), sub, name, *database, stdout); err != nil {
			fmt.Fprintln(stderr, "agenthub:", err)
			return 1
		}
		return 0
	}
	dir := *dataDir
	if dir == "" {
		if dir, err = hub.DefaultDataDir(); err != nil {
			fmt.Fprintln(stderr, "agenthub:", err)
			return 1
		}
	}
	// Refuse a change while a hub runs on the directory: it is the one place that may change who can
	// call it while it serves (Settings → Access), and taking its lock keeps a hub from starting
	// mid-change. Reading is harmless, so list and anonymous (printing the policy) read the running
	// hub's database instead.
	release, err := hub.LockHubDB(dir)
	if errors.Is(err, hub.ErrInUse) && readsOnly(sub, name) {
		if err := readRunningHub(context.Background(), sub, dir, stdout); err != nil {
			fmt.Fprintln(stderr, "agenthub:", err)
			return 1
		}
		return 0
	}
	if errors.Is(err, hub.ErrInUse) {
		fmt.Fprintf(stderr, "agenthub: AgentHub is running on %s; stop it first, or manage access in Settings → Access\n", dir)
		return 1
	}
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	defer release()
	if err := runPrincipals(context.Background(), sub, name, hub.HubDBPath(dir), stdout); err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	return 0
}

// runPrincipals runs sub over the hub's database at target: hub.db's path, or a PostgreSQL URL.
func runPrincipals(ctx context.Context, sub, name, target string, stdout io.Writer) error {
	db, err := store.Open(target)
	if err != nil {
		return err
	}
	defer db.Close()
	ps, err := auth.OpenPrincipals(ctx, db)
	if err != nil {
		return err
	}
	switch sub {
	case "add", "rotate":
		add := ps.Add
		if sub == "rotate" {
			add = ps.Rotate
		}
		info, key, err := add(ctx, name)
		if errors.Is(err, auth.ErrNotFound) {
			return fmt.Errorf("no principal named %q (list them with: agenthub principals list)", name)
		}
		if errors.Is(err, auth.ErrExists) {
			return fmt.Errorf("%s already exists; give it a new key with: agenthub principals rotate %s", auth.Agent(name), name)
		}
		if err != nil {
			return err
		}
		if sub == "add" {
			fmt.Fprintf(stdout, "Added %s.\n", info.ID)
		} else {
			fmt.Fprintf(stdout, "New key for %s; the old key and its tokens no longer work.\n", info.ID)
		}
		fmt.Fprintf(stdout, "Its API key follows, shown only this once. Send it as the X-Api-Key header, or as client_secret\n"+
			"(client_id %s) at the hub's %s for a bearer token.\n%s\n", name, auth.TokenPath, key)
	case "remove":
		err := ps.Remove(ctx, name)
		if errors.Is(err, auth.ErrNotFound) {
			return fmt.Errorf("no principal named %q (list them with: agenthub principals list)", name)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Removed %s; its key and tokens no longer work.\n", auth.Agent(name))
	case "anonymous":
		if name == "" {
			p, err := ps.AnonymousPolicy(ctx)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, p)
			return nil
		}
		if err := ps.SetAnonymousPolicy(ctx, auth.AnonymousPolicy(name)); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Callers without a key: %s.\n", name)
	case "list":
		list, err := ps.List(ctx)
		if err != nil {
			return err
		}
		return printPrincipals(stdout, list)
	}
	return nil
}

// readsOnly tells the subcommands that change nothing: list, and anonymous without a policy.
func readsOnly(sub, name string) bool { return sub == "list" || (sub == "anonymous" && name == "") }

// readRunningHub answers a read-only subcommand from the database of a hub that is running, opened
// read-only: no migration, no writer, no checkpoint that would hold the hub's writes off.
func readRunningHub(ctx context.Context, sub, dir string, stdout io.Writer) error {
	db, err := store.OpenReadOnly(hub.HubDBPath(dir))
	if err != nil {
		return err
	}
	defer db.Close()
	if sub == "anonymous" {
		p, err := auth.LoadAnonymousPolicy(ctx, db)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, p)
		return nil
	}
	list, err := auth.ListPrincipals(ctx, db)
	if err != nil {
		return err
	}
	return printPrincipals(stdout, list)
}

// printPrincipals writes list as a table, never with keys: only their first characters.
func printPrincipals(w io.Writer, list []auth.Info) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PRINCIPAL\tKEY\tCREATED\tLAST USED")
	for _, p := range list {
		fmt.Fprintf(tw, "%s\t%s…\t%s\t%s\n", p.ID, p.KeyPrefix, listTime(p.CreatedAt), listTime(p.LastUsedAt))
	}
	return tw.Flush()
}

func listTime(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

// parseInterspersed parses flags given before, between or after the positional arguments
// (`add NAME --data DIR` as well as `add --data DIR NAME`), which flag.Parse alone stops at.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}
