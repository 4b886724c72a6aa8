package channels_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// BenchmarkPublishBound prints what bounds a publish on PostgreSQL (issue 25): one hub on a
// PostgreSQL database (its own throwaway cluster unless AGENTHUB_TEST_DATABASE says otherwise),
// Service.Publish called in process by 1, 8 and 64 writers flat out for 3 s each, beside a bare
// one-row write through the same group-commit writer. For each row: events/s, writes per commit,
// CPU per event of this process and of the PostgreSQL cluster, and where the writer's connection
// spent its time, sampled from pg_stat_activity every 2 ms: executing a statement, flushing WAL at
// commit (IO WALSync/WALWrite, or the LWLock of another backend's flush), waiting on a lock, idle in
// its transaction (waiting for the hub to send the next statement: the round trip and the Go side),
// or idle between batches. Then the database's own commit rate: one-row INSERTs committed one at a
// time on one connection, and on 64 connections at once (what a replica per machine would add).
// It prints; it asserts nothing.
//
//	go test ./backend/channels -run '^$' -bench PublishBound -benchtime 1x [-cpuprofile cpu.out]
func BenchmarkPublishBound(b *testing.B) {
	var url string
	var pgCPU func() time.Duration
	if storetest.Postgres() {
		url = storetest.Target(b, "")
	} else {
		c, err := storetest.StartCluster()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(c.Remove)
		if url, err = c.CreateDatabase("bound"); err != nil {
			b.Fatal(err)
		}
		pgCPU = func() time.Duration { return clusterCPU(c.Dir) }
	}
	h := startHubOn(b, url, hubtest.KeyFile(b, ""))
	alice := h.principal(b, "alice")
	db := h.Agent.DB
	if _, err := db.Writer.Exec(`CREATE TABLE IF NOT EXISTS bench_floor (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body BYTEA NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	monitor, err := sql.Open("pgx", url)
	if err != nil {
		b.Fatal(err)
	}
	defer monitor.Close()
	ctx := auth.WithPrincipal(context.Background(), auth.Agent("alice"))
	body := []byte(`{"kind":"messageEvent","parts":[{"type":"text","text":"benchmark message"}]}`)
	out := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	defer out.Flush()
	for b.Loop() {
		fmt.Fprintf(out, "\npublish on PostgreSQL: what bounds it (3 s per row; loadavg %s)\n", loadavg())
		fmt.Fprintln(out, "writers\top\tevents/s\twrites/commit\tcommits/s\tCPU µs/event process\tpostgres\twriter conn: executing\tWAL flush\tlock wait\tidle in tx\tidle\tsamples\t")
		for _, n := range []int{1, 8, 64} {
			var p channels.PublishParams
			raw, _ := json.Marshal(textParams(alice.create(map[string]any{"name": fmt.Sprint("bound-", n)}).ID))
			json.Unmarshal(raw, &p)
			for _, op := range []struct {
				name string
				fn   func() error
			}{
				{"publish", func() error { _, err := h.Channels.Publish(ctx, p); return err }},
				{"bare write", func() error {
					return db.Write(ctx, func(tx *sql.Tx) error {
						_, err := tx.Exec(`INSERT INTO bench_floor(body) VALUES (?)`, body)
						return err
					})
				}},
			} {
				stop := sampleWriter(monitor)
				cpu0, st0 := cpuTime(), db.Stats()
				var pg0 time.Duration
				if pgCPU != nil {
					pg0 = pgCPU()
				}
				done, took := run(n, 3*time.Second, func() {
					if err := op.fn(); err != nil {
						b.Fatal(err)
					}
				})
				cpu, st := cpuTime()-cpu0, db.Stats()
				pg := "–"
				if pgCPU != nil {
					pg = fmt.Sprintf("%.0f", float64((pgCPU()-pg0).Microseconds())/float64(done))
				}
				w := stop()
				batches := st.Batches - st0.Batches
				fmt.Fprintf(out, "%d\t%s\t%.0f\t%.1f\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", n, op.name, float64(done)/took.Seconds(),
					float64(st.Writes-st0.Writes)/float64(max(1, batches)), float64(batches)/took.Seconds(),
					float64(cpu.Microseconds())/float64(done), pg, w.share("executing"), w.share("WAL flush"), w.share("lock wait"),
					w.share("idle in tx"), w.share("idle"), w.total)
			}
		}
		out.Flush()
		// The database's commit rate: each INSERT its own transaction (synchronous_commit on).
		fmt.Fprintf(out, "\nthe database's commit rate: one-row INSERTs, each committed alone, 3 s (loadavg %s)\n", loadavg())
		fmt.Fprintln(out, "connections\tcommits/s\tmean per commit\tCPU µs/commit postgres\t")
		if _, err := monitor.Exec(`CREATE TABLE IF NOT EXISTS bench_commit (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body BYTEA NOT NULL)`); err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{1, 64} {
			pool, err := sql.Open("pgx", url)
			if err != nil {
				b.Fatal(err)
			}
			pool.SetMaxOpenConns(n)
			pool.SetMaxIdleConns(n)
			var pg0 time.Duration
			if pgCPU != nil {
				pg0 = pgCPU()
			}
			done, took := run(n, 3*time.Second, func() {
				if _, err := pool.Exec(`INSERT INTO bench_commit(body) VALUES ($1)`, body); err != nil {
					b.Fatal(err)
				}
			})
			pg := "–"
			if pgCPU != nil {
				pg = fmt.Sprintf("%.0f", float64((pgCPU()-pg0).Microseconds())/float64(done))
			}
			rate := float64(done) / took.Seconds()
			fmt.Fprintf(out, "%d\t%.0f\t%s\t%s\t\n", n, rate, ms(time.Duration(float64(n)*float64(time.Second)/rate)), pg)
			pool.Close()
		}
	}
}

// writerStates tallies samples of the hub writer's connection by what it was doing.
type writerStates struct {
	counts map[string]int
	total  int
}

func (w writerStates) share(state string) string {
	return fmt.Sprintf("%.0f%%", 100*float64(w.counts[state])/float64(max(1, w.total)))
}

// sampleWriter samples pg_stat_activity every 2 ms until the returned stop is called. The writer's
// connection is the one backend whose last statement is one of the writer's (a savepoint, the
// batch's BEGIN or COMMIT, or an INSERT); the readers only read.
func sampleWriter(monitor *sql.DB) (stop func() writerStates) {
	var quit atomic.Bool
	var wg sync.WaitGroup
	w := writerStates{counts: map[string]int{}}
	wg.Go(func() {
		for !quit.Load() {
			rows, err := monitor.Query(`SELECT state, COALESCE(wait_event_type, ''), COALESCE(wait_event, ''), query
				FROM pg_stat_activity WHERE application_name = 'agenthub' AND datname = current_database()`)
			if err == nil {
				for rows.Next() {
					var state, waitType, wait, query string
					if rows.Scan(&state, &waitType, &wait, &query) != nil {
						continue
					}
					// The writer's connection is the one whose statement (running, or its last) is one only
					// the writer runs: the publishes' own (SELECT last_seq … FOR UPDATE, and the batch's
					// WITH p AS … read and WITH e AS … write), the
					// channels' write lock, the batch's notes, or an insert, a savepoint, BEGIN, COMMIT.
					q := strings.ToUpper(strings.TrimSpace(query))
					writer := false
					for _, prefix := range []string{"SAVEPOINT", "RELEASE", "INSERT", "BEGIN", "COMMIT", "UPDATE CHANNELS",
						"WITH P AS", "WITH E AS", "SELECT LAST_SEQ", "SELECT PG_ADVISORY_XACT_LOCK", "SELECT PG_NOTIFY"} {
						writer = writer || strings.HasPrefix(q, prefix)
					}
					if !writer {
						continue
					}
					var what string
					switch {
					case state == "idle in transaction":
						what = "idle in tx"
					case state == "idle":
						what = "idle"
					case state != "active":
						what = state
					case wait == "WALSync" || wait == "WALWrite" || wait == "WALInsert" || (waitType == "LWLock" && strings.HasPrefix(wait, "WAL")):
						what = "WAL flush"
					case waitType == "Lock":
						what = "lock wait"
					default:
						what = "executing"
					}
					w.counts[what]++
					w.total++
				}
				rows.Close()
			}
			time.Sleep(2 * time.Millisecond)
		}
	})
	return func() writerStates {
		quit.Store(true)
		wg.Wait()
		return w
	}
}
