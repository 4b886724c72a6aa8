package knowledge

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"log/slog"
	"strings"

	"github.com/boltdb/bolt"

	"github.com/agenthub/agenthub/backend/store"
)

// termsVersion is the form kg_statements and the graph keep terms in: 1 is full IRIs for the
// well-known CURIEs, language-tagged strings as RDF language strings (terms.go). Data dirs of
// earlier versions (0: the CURIEs stored, "@tag" a datatype) are migrated once by migrateTerms,
// and a graph file of an earlier form is rebuilt from kg_statements (see Open).
const termsVersion = 1

// migrateTermsBatch is how many statements one transaction of the migration reads (a variable for
// tests).
var migrateTermsBatch = 5000

// migrateTerms rewrites the statements of kg_statements stored in an earlier form of terms into
// today's, once (kg_state.terms_version records it), and logs one line with the counts if it had
// any to read. A statement whose new form is already stored (a data dir from before CURIEs and
// IRIs were one term may hold both) is merged into it: the stored one stays, with its metadata.
// The change log is left as written: changesAfter reads its entries in today's form. Batches of
// its own transactions, each idempotent, so a migration cut short goes on at the next start.
func migrateTerms(ctx context.Context, db *store.DB, log *slog.Logger) (bool, error) {
	done, err := readState(ctx, db.Reader, "terms_version")
	if err != nil || done >= termsVersion {
		return false, err
	}
	var seen, rewritten, merged int64
	for after := int64(0); ; {
		// The batch's results are kept only once it commits: the writer may run it again.
		var n int
		var last, batchRewritten, batchMerged int64
		err := db.Write(ctx, func(tx *sql.Tx) error {
			last, batchRewritten, batchMerged = after, 0, 0
			if db.Postgres() {
				// Replicas starting together on one database migrate one batch at a time.
				if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('agenthub.knowledge.terms'))`); err != nil {
					return err
				}
			}
			rs, err := selectRows(ctx, tx, `SELECT `+rowColumns+` FROM kg_statements WHERE id > ? ORDER BY id LIMIT ?`, last, migrateTermsBatch)
			if err != nil {
				return err
			}
			n = len(rs)
			for _, r := range rs {
				last = r.ID
				old := r.Stmt
				st := r.Stmt
				if err := st.canonicalize(nil); err != nil {
					continue // not a statement today's checks take; kept as it is
				}
				newKey := st.key()
				same := st.Subject.ID == old.Subject.ID && st.Predicate.ID == old.Predicate.ID && st.Object.ID == old.Object.ID &&
					st.Graph == old.Graph && st.Object.datatype() == datatypeColumn(old)
				if same && strings.HasPrefix(old.Object.Type, "@") {
					// A language-tagged string: its columns read the same, its object key (once a
					// typed string's "^^<@fr>") may not.
					var objKey string
					if err := tx.QueryRowContext(ctx, `SELECT obj_key FROM kg_statements WHERE id = ?`, r.ID).Scan(&objKey); err != nil {
						return err
					}
					same = objKey == newKey.object
				}
				if same {
					continue // the columns decide the object key otherwise: it is today's too
				}
				var other int64
				err := tx.QueryRowContext(ctx, `SELECT id FROM kg_statements WHERE subject = ? AND predicate = ? AND obj_key = ? AND graph = ?`,
					newKey.subject, newKey.predicate, newKey.object, newKey.graph).Scan(&other)
				switch {
				case err == nil && other != r.ID:
					if err := deleteRow(ctx, tx, r.ID); err != nil {
						return err
					}
					batchMerged++
					continue
				case err != nil && !errors.Is(err, sql.ErrNoRows):
					return err
				}
				if _, err := tx.ExecContext(ctx, `UPDATE kg_statements SET subject = ?, predicate = ?, obj_key = ?, object_id = ?, datatype = ?, graph = ? WHERE id = ?`,
					newKey.subject, newKey.predicate, newKey.object, nullable(st.Object.ID), nullable(st.Object.datatype()), newKey.graph, r.ID); err != nil {
					return err
				}
				batchRewritten++
			}
			if n < migrateTermsBatch {
				return writeState(ctx, tx, "terms_version", termsVersion)
			}
			return nil
		})
		if err != nil {
			return false, err
		}
		after, seen, rewritten, merged = last, seen+int64(n), rewritten+batchRewritten, merged+batchMerged
		if n < migrateTermsBatch {
			break
		}
	}
	if seen > 0 { // a new data dir has nothing to migrate, and nothing to say
		log.Info("knowledge: statements migrated to terms as full IRIs (well-known CURIEs expanded, language tags kept as such)",
			"statements", seen, "rewritten", rewritten, "merged", merged)
	}
	return true, nil
}

// datatypeColumn is the datatype column of a row as read (empty for a resource).
func datatypeColumn(s Statement) string {
	if s.Object.ID != "" {
		return ""
	}
	return s.Object.Type
}

// The form of terms the graph file holds is recorded beside its position (positionBucket).
var termsKey = []byte("terms_version")

// readGraphTerms is the form of terms recorded in bdb (0 when none is: an earlier version's file).
func readGraphTerms(bdb *bolt.DB) (int64, error) {
	var v int64
	err := bdb.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(positionBucket); b != nil {
			if x := b.Get(termsKey); len(x) == 8 {
				v = int64(binary.BigEndian.Uint64(x))
			}
		}
		return nil
	})
	return v, err
}

// writeGraphTerms records today's form of terms in bdb, synced, unless it is recorded already.
func writeGraphTerms(bdb *bolt.DB) error {
	if v, err := readGraphTerms(bdb); err != nil || v == termsVersion {
		return err
	}
	if err := bdb.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(positionBucket)
		if err != nil {
			return err
		}
		return b.Put(termsKey, binary.BigEndian.AppendUint64(nil, uint64(termsVersion)))
	}); err != nil {
		return err
	}
	return bdb.Sync()
}
