package channels

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// cursor is where a history page ended, and the filter it was read under. The client sees it only
// as an opaque token: base64url(JSON) "." base64url(HMAC-SHA256 of the JSON under the hub's key).
type cursor struct {
	Channel string   `json:"c"`
	After   int64    `json:"a"`
	Authors []string `json:"u,omitempty"`
}

func (s *Service) sign(payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(payload)
	return m.Sum(nil)
}

func (s *Service) sealCursor(c cursor) string {
	raw, _ := json.Marshal(c) // a struct of strings and an int always marshals
	enc := base64.RawURLEncoding
	return enc.EncodeToString(raw) + "." + enc.EncodeToString(s.sign(raw))
}

var errBadToken = errors.New("bad page token")

// openCursor checks a token's signature before it reads anything in it: a tampered token, or one
// another hub signed, is refused.
func (s *Service) openCursor(token string) (cursor, error) {
	var c cursor
	body, sig, ok := strings.Cut(token, ".")
	if !ok {
		return c, errBadToken
	}
	enc := base64.RawURLEncoding
	raw, err := enc.DecodeString(body)
	if err != nil {
		return c, errBadToken
	}
	mac, err := enc.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, s.sign(raw)) {
		return c, errBadToken
	}
	if err := json.Unmarshal(raw, &c); err != nil || c.After < 0 {
		return c, errBadToken
	}
	return c, nil
}

// tokenKey is the hub's random key for page tokens, made on first open and kept in the table so
// tokens survive a restart, every replica signs with the same one, and a token of another hub is
// refused. Replicas starting together each offer a key: the first stored is the one all read back.
func (s *Service) tokenKey(ctx context.Context) ([]byte, error) {
	var key []byte
	err := s.write(ctx, func(tx *sql.Tx) error {
		offer := make([]byte, 32)
		if _, err := rand.Read(offer); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO channel_settings(name, value) VALUES ('page_token_key', ?)
			ON CONFLICT (name) DO NOTHING`, offer); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM channel_settings WHERE name = 'page_token_key'`).Scan(&key)
	})
	return key, err
}
