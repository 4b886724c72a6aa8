package filename_test

import (
	"testing"

	"github.com/agenthub/agenthub/backend/filename"
)

func TestCleanDropsFormatCharacters(t *testing.T) {
	cases := map[string]string{
		"invoice\u202Efdp.exe":                  "invoicefdp.exe",
		"\u2066report\u2069.pdf":                "report.pdf",
		"a\u200Eb\u200Fc\u061Cd":                "abcd",
		"zero\u200Bwidth\u200C\u200D\uFEFF":     "zerowidth",
		"\u202A\u202B\u202C\u202Dx\u2067\u2068": "x",
		"plain name (1).txt":                    "plain name (1).txt",
		"héllo wörld ✓.md":                      "héllo wörld ✓.md",
		"عربي.txt":                              "عربي.txt",
	}
	for in, want := range cases {
		if got := filename.Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}
