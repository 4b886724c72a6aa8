package channels

import (
	"sync"
	"time"
)

// Default per-principal rate of publish and history calls: generous for agents and the UI, a
// brake on a runaway loop.
const (
	DefaultRate  = 2000 // calls per second
	DefaultBurst = 4000
)

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
