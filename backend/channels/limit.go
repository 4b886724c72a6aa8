package channels

import (
	"sync"
	"time"

	"github.com/google/uuid"
)

// Limits of the spec's section 8.
const (
	MaxNameLen           = 128       // characters
	MaxMetadataBytes     = 16 * 1024 // serialized JSON
	MaxParts             = 32
	MaxIdempotencyKeyLen = 128 // characters
	DefaultPageSize      = 50
	MaxPageSize          = 200
)

// Default per-principal rate of publish and history calls: generous for agents and the UI, a
// brake on a runaway loop.
const (
	DefaultRate  = 2000 // calls per second
	DefaultBurst = 4000
)

// SetRateLimit sets how many publish and history calls per second each principal may make, with
// a burst of that many at once.
func (s *Service) SetRateLimit(perSecond float64, burst int) { s.limiter.set(perSecond, burst) }

// limiter is a token bucket per principal.
type limiter struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	buckets map[string]*bucket
	now     func() time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(rate float64, burst int) *limiter {
	return &limiter{rate: rate, burst: float64(burst), buckets: map[string]*bucket{}, now: time.Now}
}

// set changes the rate and burst; buckets start full again.
func (l *limiter) set(rate float64, burst int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rate, l.burst, l.buckets = rate, float64(burst), map[string]*bucket{}
}

// allow takes one token from who's bucket, refilled at rate since it was last used.
func (l *limiter) allow(who string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.buckets[who]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[who] = b
	}
	b.tokens += now.Sub(b.at).Seconds() * l.rate
	if b.tokens > l.burst {
		b.tokens = l.burst
	}
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// Event size. A member's publish is held to 8 MiB by the hub's JSON-RPC body limit
// (server.DefaultMaxBodyBytes), and a reading hub takes at most 8 MiB as one stream event
// (agents/jsonrpc.MaxSSEEvent): MaxEventBytes is that 8 MiB, and MaxEventJSON what of it one event's JSON
// may fill, leaving room for the stream item and the JSON-RPC response around it. The bridge holds
// an agent's answer to MaxEventJSON; a stream sends an event stored larger (by an older hub's
// bridge) as a placeholder naming it; a member's publish whose JSON would be larger (JSON escaping
// grows text: '<' is stored as six bytes) is refused.
const (
	MaxEventBytes = 8 << 20
	MaxEventJSON  = MaxEventBytes - 4<<10
)

// EventJSONSize is how long the JSON of the event p would be once author publishes it, its
// sequence and timestamp taken at their widest: what MaxEventJSON bounds.
func EventJSONSize(author string, p PublishParams) (int, error) {
	enc, err := encodeEvent(&MessageEvent{ID: uuid.NewString(), ChannelID: p.ChannelID, Author: author, Parts: p.Parts,
		ArtifactRefs: p.ArtifactRefs, Metadata: p.Metadata, IdempotencyKey: p.IdempotencyKey, Kind: "messageEvent"})
	if err != nil {
		return 0, err
	}
	return enc.widest(), nil
}

// widest is the length of the event's JSON with its sequence and timestamp at their widest.
func (e eventJSON) widest() int {
	const widest = len(`9223372036854775807,"timestamp":9223372036854775807`)
	return len(e.head) + widest + len(e.tail)
}
