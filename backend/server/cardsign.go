package server

import (
	"crypto/ecdsa"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/agenthub/agenthub/backend/cardsig"
)

// CardSigner holds the key the agent's cards are signed with (auth.Service: its token key, published
// in its JWKS at cardsig.JWKSPath).
type CardSigner interface {
	CardKey() (kid string, key *ecdsa.PrivateKey)
}

// signedCards serves the card documents signed with the signer's current key. A document is signed
// once per key (ECDSA signatures differ each time, and clients that pin a card's bytes should see the
// same bytes); when the key rotates, the next request signs again with the new one.
type signedCards struct {
	signer   CardSigner
	jku      string
	unsigned [2][]byte // agent-card.json, agent.json
	log      *slog.Logger

	mu   sync.Mutex
	kid  string
	docs [2][]byte
}

func newSignedCards(signer CardSigner, baseURL string, cardJSON, legacyJSON []byte, log *slog.Logger) *signedCards {
	return &signedCards{signer: signer, jku: strings.TrimRight(baseURL, "/") + cardsig.JWKSPath,
		unsigned: [2][]byte{cardJSON, legacyJSON}, docs: [2][]byte{cardJSON, legacyJSON}, log: log}
}

// doc is document i as served now: signed with the current key, or unsigned when there is no signer.
func (s *signedCards) doc(i int) []byte {
	if s.signer == nil {
		return s.unsigned[i]
	}
	kid, key := s.signer.CardKey()
	s.mu.Lock()
	defer s.mu.Unlock()
	if kid != s.kid {
		var docs [2][]byte
		for j, u := range s.unsigned {
			signed, err := cardsig.Sign(u, kid, key, s.jku)
			if err != nil {
				// Serving the card unsigned beats not serving it; clients show it as unsigned.
				s.log.Error("cannot sign the agent card", "err", err)
				return s.unsigned[i]
			}
			docs[j] = signed
		}
		s.kid, s.docs = kid, docs
	}
	return s.docs[i]
}

func (s *signedCards) handler(i int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { staticJSON(s.doc(i)).ServeHTTP(w, r) })
}
