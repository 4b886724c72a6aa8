// Package filename holds the one rule for a file name that came from elsewhere (a remote agent, a
// caller, the owner's disk) before it is recorded or shown.
package filename

import (
	"strings"
	"unicode"
)

// Clean drops Unicode format characters (category Cf): bidi embeddings, overrides and isolates
// (U+202A–U+202E, U+2066–U+2069), marks (U+200E, U+200F, U+061C) and zero-width characters
// (U+200B–U+200D, U+2060, U+FEFF). They are invisible, and an override makes "invoice‮fdp.exe"
// read as "invoiceexe.pdf". The frontend applies the same rule (stripFormatChars).
func Clean(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, name)
}
