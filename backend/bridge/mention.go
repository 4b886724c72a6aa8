package bridge

import (
	"strings"
	"unicode"
)

// handleOf is the handle a member is mentioned by: the part of its principal id after "://"
// ("remote://demo" → "demo"), lower-cased.
func handleOf(principalID string) string {
	_, h, ok := strings.Cut(principalID, "://")
	if !ok {
		return ""
	}
	return strings.ToLower(h)
}

// mentionAll mentions every added agent in the channel.
const mentionAll = "all"

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func isHandleRune(r rune) bool { return isWordRune(r) || r == '.' || r == '-' }

// mentionTokens are the handles written as @handle in text, lower-cased, in order: an '@' at a word
// boundary (not inside a word, so an e-mail address mentions no one), followed by the longest run
// of handle characters, less a sentence's closing dots ("@demo." mentions demo, "@demo-2" does
// not). starts and ends are where each "@handle" starts and ends in text (byte offsets).
func mentionTokens(text string) (handles []string, starts, ends []int) {
	runes := []rune(text)
	for i := 0; i < len(runes); i++ {
		if runes[i] != '@' || i > 0 && (isWordRune(runes[i-1]) || runes[i-1] == '@') {
			continue
		}
		j := i + 1
		for j < len(runes) && isHandleRune(runes[j]) {
			j++
		}
		k := j
		for k > i+1 && runes[k-1] == '.' {
			k--
		}
		if k > i+1 {
			handles = append(handles, strings.ToLower(string(runes[i+1:k])))
			starts = append(starts, len(string(runes[:i])))
			ends = append(ends, len(string(runes[:k])))
		}
		i = j - 1
	}
	return handles, starts, ends
}

// Slug is the handle an added agent is also mentioned by, made from its name: lower case, every run
// of characters a handle cannot hold turned into one '-', no '-' or '.' at either end ("Demo agent"
// → "demo-agent"). Its id works too, but an added agent's id is a UUID nobody types. The UI's
// mention completion makes the same slug (frontend/src/channels/names.ts slugOf).
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if isHandleRune(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-.")
}

// member is an added agent in a channel as mentions name it: its id, and the slug of its name.
type member struct{ id, slug string }

// mentioned are the added agents (agent ids, in the channel's order) that text mentions, by their
// id, the slug of their name, or @all when all counts, leaving out self (an agent does not mention
// itself into a loop). Two agents whose names make the same slug are both mentioned by it.
func mentioned(text string, agents []member, self string, all bool) []string {
	tokens, _, _ := mentionTokens(text)
	want := map[string]bool{}
	for _, t := range tokens {
		want[t] = true
	}
	everyone := all && want[mentionAll]
	var out []string
	for _, a := range agents {
		if a.id != self && (everyone || want[strings.ToLower(a.id)] || a.slug != "" && want[a.slug]) {
			out = append(out, a.id)
		}
	}
	return out
}

// addressed is text without the @mentions that open it ("@demo @js: ask" → "ask"): they say who the
// message is for, and the agent gets what is said to it. Mentions later in the text stay.
func addressed(text string) string {
	rest := strings.TrimLeftFunc(text, unicode.IsSpace)
	for {
		tokens, starts, ends := mentionTokens(rest)
		if len(tokens) == 0 || starts[0] != 0 {
			return rest
		}
		rest = strings.TrimLeftFunc(strings.TrimLeft(rest[ends[0]:], ",:;"), unicode.IsSpace)
	}
}
