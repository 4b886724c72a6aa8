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

// mentioned are the added agents (agent ids, in the channel's order) that text mentions, by their
// handle or by @all, leaving out self (an agent does not mention itself into a loop).
func mentioned(text string, agents []string, self string) []string {
	tokens, _, _ := mentionTokens(text)
	want := map[string]bool{}
	for _, t := range tokens {
		want[t] = true
	}
	var out []string
	for _, id := range agents {
		if id != self && (want[mentionAll] || want[strings.ToLower(id)]) {
			out = append(out, id)
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
