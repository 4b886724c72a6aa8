package agents

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agenthub/agenthub/backend/cardsig"
)

// What the hub made of a card's signatures (Trust.State).
const (
	TrustUnchecked  = ""            // fetched before the hub checked signatures; checked on refresh
	TrustSigned     = "signed"      // every signature verified, with the pinned key among their keys
	TrustUnsigned   = "unsigned"    // no signature, and no key was pinned for the agent
	TrustInvalid    = "invalid"     // a signature failed, or a formerly signed agent's card is unsigned
	TrustKeyChanged = "key_changed" // signatures verified, but none with the key pinned for the agent
)

// ErrCardUntrusted refuses calls to an agent whose card is TrustInvalid or TrustKeyChanged until the
// owner has confirmed that card (Registry.TrustCard).
var ErrCardUntrusted = errors.New("the agent's card is not trusted")

// Trust is the signature check of an agent's card as last fetched, and the key pinned for it: the
// first key a card of the agent verified with (trust on first use, like SSH's known_hosts).
type Trust struct {
	State      string
	Detail     string // what was checked, or what failed, in words
	PinnedKey  string // RFC 7638 thumbprint; "" until a card verified
	PinnedJWK  string
	PendingKey string // TrustKeyChanged: the key the new card verified with, pinned when confirmed
	PendingJWK string
	// ForeignHosts are the hosts the card's interfaces are on besides the host its card was read
	// from (loopback names count as one): the hub would send the agent's messages and credentials
	// there, so it waits for the owner to confirm the card first.
	ForeignHosts []string
	// Confirmed: the owner confirmed this very card (its bytes) in spite of its state.
	Confirmed bool
}

// Usable says the hub may talk to the agent.
func (t Trust) Usable() bool {
	return t.Confirmed || (t.State != TrustInvalid && t.State != TrustKeyChanged && len(t.ForeignHosts) == 0)
}

// untrusted is the error of a call refused because of t.
func (t Trust) untrusted(name string) error {
	what := "signature is invalid (" + t.Detail + ")"
	switch {
	case t.State == TrustKeyChanged:
		what = "signing key changed (" + t.Detail + ")"
	case t.State != TrustInvalid:
		what = "lists interfaces on other hosts than its own: " + strings.Join(t.ForeignHosts, ", ")
	}
	return fmt.Errorf("%w: %s's card %s; the hub will not talk to it until you confirm the card in the agent's settings",
		ErrCardUntrusted, name, what)
}

// foreignHosts are the hosts of the card's interfaces (those the hub would call) other than the
// host of cardURL, where the card was read; loopback names (localhost, 127.0.0.0/8, ::1) are one.
func foreignHosts(card []byte, cardURL string) []string {
	u, err := url.Parse(cardURL)
	if err != nil {
		return nil
	}
	home := hostKey(u.Hostname())
	eps, err := Endpoints(card)
	if err != nil {
		return nil
	}
	var out []string
	for _, ep := range eps {
		var host string
		if ep.Binding == GRPC {
			target, _ := grpcTarget(ep.URL)
			host, _, _ = net.SplitHostPort(target)
		} else if eu, err := url.Parse(ep.URL); err == nil {
			host = eu.Hostname()
		}
		if host != "" && hostKey(host) != home && !slices.Contains(out, host) {
			out = append(out, host)
		}
	}
	return out
}

// hostKey is a host name compared case-blind, every loopback name as one.
func hostKey(host string) string {
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return "loopback"
	}
	return host
}

func cardHash(card []byte) string {
	sum := sha256.Sum256(card)
	return hex.EncodeToString(sum[:])
}

// assess checks card's signatures (keys from cardURL's origin) against the key pinned for the agent.
// The result keeps pinned, or pins the first verified key when none was.
func (r *Registry) assess(ctx context.Context, card []byte, cardURL string, pinned Trust) Trust {
	res := cardsig.Verify(ctx, card, cardURL, r.fetchKeys)
	t := Trust{PinnedKey: pinned.PinnedKey, PinnedJWK: pinned.PinnedJWK}
	switch {
	case res.Unsigned() && t.PinnedKey == "":
		t.State, t.Detail = TrustUnsigned, "the card carries no signature"
	case res.Unsigned():
		t.State, t.Detail = TrustInvalid, "the card is not signed, but this agent's cards were signed with key "+t.PinnedKey
	case !res.Signed():
		t.State, t.Detail = TrustInvalid, strings.Join(res.Problems(), "; ")
	default:
		var keys []*cardsig.Key
		for _, s := range res.Signatures {
			keys = append(keys, s.Key)
		}
		first := keys[0]
		switch {
		case t.PinnedKey == "":
			t.PinnedKey, t.PinnedJWK = first.Thumbprint, string(first.JWK)
			t.State, t.Detail = TrustSigned, "verified; key "+first.Thumbprint+" pinned on first use"
		case containsKey(keys, t.PinnedKey):
			t.State, t.Detail = TrustSigned, "verified with the pinned key "+t.PinnedKey
		default:
			t.State = TrustKeyChanged
			t.PendingKey, t.PendingJWK = first.Thumbprint, string(first.JWK)
			t.Detail = fmt.Sprintf("the card verifies with key %s, but key %s was pinned for this agent", first.Thumbprint, t.PinnedKey)
		}
	}
	return t
}

func containsKey(keys []*cardsig.Key, thumbprint string) bool {
	for _, k := range keys {
		if k.Thumbprint == thumbprint {
			return true
		}
	}
	return false
}

// maxJWKSBytes bounds a fetched key set.
const maxJWKSBytes = 64 << 10

// fetchKeys reads a JWKS with the registry's client (redirects within the origin only).
func (r *Registry) fetchKeys(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := r.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxJWKSBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", u, maxJWKSBytes)
	}
	return body, nil
}

// TrustCard is the owner's confirmation of the agent's card as last fetched, in spite of its
// signature state: a changed key becomes the pinned one; an invalid card is accepted as it is (a
// different card later is checked afresh). Calls to the agent are allowed again.
func (r *Registry) TrustCard(ctx context.Context, id string) (Remote, error) {
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		rem, err := scanRemote(tx.QueryRowContext(ctx, `SELECT `+remoteColumns+` FROM remote_agents WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		if err != nil {
			return err
		}
		t := rem.Trust
		switch t.State {
		case TrustKeyChanged:
			detail := fmt.Sprintf("verified with key %s, pinned when you confirmed it (it replaced %s)", t.PendingKey, t.PinnedKey)
			_, err = tx.ExecContext(ctx, `UPDATE remote_agents SET sig_state = ?, sig_detail = ?, pinned_key = pending_key, pinned_jwk = pending_jwk,
				pending_key = '', pending_jwk = '', trust_ack = ? WHERE id = ?`, TrustSigned, detail, cardHash(rem.Card), id)
		case TrustInvalid:
			_, err = tx.ExecContext(ctx, `UPDATE remote_agents SET trust_ack = ? WHERE id = ?`, cardHash(rem.Card), id)
		default:
			if len(t.ForeignHosts) > 0 { // the owner agrees to its other hosts, for this card
				_, err = tx.ExecContext(ctx, `UPDATE remote_agents SET trust_ack = ? WHERE id = ?`, cardHash(rem.Card), id)
			}
		}
		return err
	})
	if err != nil {
		return Remote{}, err
	}
	r.publish(id)
	return r.Get(ctx, id)
}
