package secrets

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"database/sql"
	"embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"time"

	"github.com/agenthub/agenthub/backend/store"
)

// The database mode keeps the secrets in the hub's own database, so every replica of a hub on
// PostgreSQL reads the same ones (a keyring or a file would differ per machine). Each value is sealed
// with AES-256-GCM under a key that is never in the database: it is read from --secrets-key-file,
// which every replica is given.

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// KeySize is the length of the key in the key file: raw bytes, AES-256.
const KeySize = 32

// sealVersion is the first byte of every sealed value; another layout (or key rotation) gets another.
const sealVersion = 1

// keyCheck is the plaintext of the one row that tells whether a key is the database's key.
const keyCheck = "agenthub secrets key check"

var (
	// ErrWrongKey: the key file's key is not the one the database's secrets were sealed with.
	ErrWrongKey = errors.New("wrong secrets key")
	// ErrDamaged: a stored secret does not open under the (verified) key: changed or damaged in the table.
	ErrDamaged = errors.New("stored secret is damaged or was tampered with")
)

// ReadKeyFile reads the secrets key: the file must hold exactly KeySize raw bytes and be readable by
// its owner only. Anything else is refused, never guessed at (hex, base64, a trailing newline).
func ReadKeyFile(path string) ([]byte, error) {
	if path == "" {
		return nil, errors.New("secrets in the database need a key file: pass --secrets-key-file PATH " +
			"(32 random bytes, made with: head -c 32 /dev/urandom > PATH && chmod 600 PATH)")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("secrets key file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("secrets key file: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("secrets key file %s is not a regular file", path)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("secrets key file %s is open to group or others (mode %04o): make it private with chmod 600 %s",
			path, info.Mode().Perm(), path)
	}
	key, err := io.ReadAll(io.LimitReader(f, KeySize+1))
	if err != nil {
		return nil, fmt.Errorf("read the secrets key file %s: %w", path, err)
	}
	if len(key) != KeySize {
		size := fmt.Sprintf("%d bytes", len(key))
		if len(key) > KeySize {
			size = fmt.Sprintf("more than %d bytes", KeySize)
		}
		return nil, fmt.Errorf("secrets key file %s holds %s; it must hold exactly %d raw random bytes (not hex or base64, no newline): "+
			"make one with head -c 32 /dev/urandom > %s", path, size, KeySize, path)
	}
	return key, nil
}

// dbSecrets keeps each secret in its own row of agent_secrets, sealed. It caches nothing: another
// replica may have changed a row, so every Get reads the table.
type dbSecrets struct {
	db      *store.DB
	keyFile string
	aead    cipher.AEAD
}

func openDBSecrets(ctx context.Context, db *store.DB, keyFile string) (*dbSecrets, error) {
	if db == nil {
		return nil, errors.New("secrets mode database needs the hub's database")
	}
	key, err := ReadKeyFile(keyFile)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, "secrets", sub); err != nil {
		return nil, err
	}
	d := &dbSecrets{db: db, keyFile: keyFile, aead: aead}
	if err := d.checkKey(ctx); err != nil {
		return nil, err
	}
	return d, nil
}

// checkKey refuses a key other than the one the table was first opened with, before anything is
// written with it; the first to open the table records its key's check row.
func (d *dbSecrets) checkKey(ctx context.Context) error {
	sealed, err := d.keyRow(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		check, sealErr := d.seal([]byte(keyCheck), []byte(keyCheck))
		if sealErr != nil {
			return sealErr
		}
		// Replicas starting together race here: one row wins, and each then checks its key against it.
		writeErr := d.db.Write(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO agent_secrets_key (id, sealed) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`, check)
			return err
		})
		if writeErr != nil {
			return fmt.Errorf("record the secrets key check: %w", writeErr)
		}
		sealed, err = d.keyRow(ctx)
	}
	if err != nil {
		return fmt.Errorf("read the secrets key check: %w", err)
	}
	if plain, err := d.open(sealed, []byte(keyCheck)); err != nil || string(plain) != keyCheck {
		return fmt.Errorf("%w: the key in %s is not the key this database's secrets were saved with; "+
			"give every replica the same key file (nothing was changed)", ErrWrongKey, d.keyFile)
	}
	return nil
}

func (d *dbSecrets) keyRow(ctx context.Context) ([]byte, error) {
	var sealed []byte
	err := d.db.Reader.QueryRowContext(ctx, `SELECT sealed FROM agent_secrets_key WHERE id = 1`).Scan(&sealed)
	return sealed, err
}

// seal returns version byte, nonce, then the GCM ciphertext of plain with ad as additional data.
func (d *dbSecrets) seal(plain, ad []byte) ([]byte, error) {
	nonce := make([]byte, d.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	out := append([]byte{sealVersion}, nonce...)
	return d.aead.Seal(out, nonce, plain, ad), nil
}

func (d *dbSecrets) open(sealed, ad []byte) ([]byte, error) {
	n := d.aead.NonceSize()
	if len(sealed) < 1+n+d.aead.Overhead() || sealed[0] != sealVersion {
		return nil, errors.New("not a sealed value")
	}
	return d.aead.Open(nil, sealed[1:1+n], sealed[1+n:], ad)
}

// entryAD binds a sealed value to its row: a value copied to another agent or scheme does not open.
// The agent id is length-prefixed so that ("ab", "c") and ("a", "bc") differ.
func entryAD(agentID, scheme string) []byte {
	ad := []byte("agenthub secret\x00")
	ad = binary.AppendUvarint(ad, uint64(len(agentID)))
	ad = append(ad, agentID...)
	return append(ad, scheme...)
}

func (d *dbSecrets) Where() string { return "database (key file " + d.keyFile + ")" }

func (d *dbSecrets) Get(agentID, scheme string) (Secret, bool, error) {
	var sealed []byte
	err := d.db.Reader.QueryRowContext(context.Background(),
		`SELECT sealed FROM agent_secrets WHERE agent_id = ? AND scheme = ?`, agentID, scheme).Scan(&sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return Secret{}, false, nil
	}
	if err != nil {
		return Secret{}, false, fmt.Errorf("read a secret: %w", err)
	}
	plain, err := d.open(sealed, entryAD(agentID, scheme))
	if err != nil {
		// The key passed checkKey, so the row itself changed. Never quote it.
		return Secret{}, false, fmt.Errorf("%w: the secret of agent %s for %s does not open with the key in %s; save it again",
			ErrDamaged, agentID, scheme, d.keyFile)
	}
	var s Secret
	if err := json.Unmarshal(plain, &s); err != nil {
		return Secret{}, false, fmt.Errorf("%w: the secret of agent %s for %s (%s)", ErrDamaged, agentID, scheme, jsonProblem(err))
	}
	return s, true, nil
}

func (d *dbSecrets) Put(agentID, scheme string, s Secret) error {
	if err := checkKey(agentID, scheme); err != nil {
		return err
	}
	if s.IsZero() {
		return d.Delete(agentID, scheme)
	}
	plain, err := json.Marshal(s)
	if err != nil {
		return err
	}
	sealed, err := d.seal(plain, entryAD(agentID, scheme))
	if err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	return d.db.Write(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO agent_secrets (agent_id, scheme, sealed, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (agent_id, scheme) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`,
			agentID, scheme, sealed, now)
		return err
	})
}

func (d *dbSecrets) Delete(agentID, scheme string) error {
	return d.db.Write(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE FROM agent_secrets WHERE agent_id = ? AND scheme = ?`, agentID, scheme)
		return err
	})
}

func (d *dbSecrets) DeleteAgent(agentID string) error {
	return d.db.Write(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE FROM agent_secrets WHERE agent_id = ?`, agentID)
		return err
	})
}
