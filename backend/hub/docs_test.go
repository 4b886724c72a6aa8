package hub_test

// The documentation check: README.md and docs/*.md must not rot silently. Every relative link in
// them must lead to a file in the repository (and, when it names a heading, to that heading), and
// every JSON-RPC method the protocol pages document must be one a real hub's router knows.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
)

// docsRoot is the repository root, seen from this package's directory (backend/hub).
const docsRoot = "../.."

// methodPages are the pages whose methods are checked against the router.
var methodPages = []string{"docs/protocol.md", "docs/channels.md", "docs/knowledge.md"}

// docPages lists README.md and every Markdown file under docs/, as paths relative to the repository.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(docsRoot, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(docsRoot, path)
			if err != nil {
				return err
			}
			pages = append(pages, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// docLine is one line of a page, with what the checks need to say where it is.
type docLine struct {
	page string // relative to the repository root
	num  int    // 1-based
	text string
}

func (l docLine) String() string { return fmt.Sprintf("%s:%d", l.page, l.num) }

// readLines returns a page's lines outside fenced code blocks, where links and tables are Markdown.
func readLines(t *testing.T, page string) []docLine {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(docsRoot, page))
	if err != nil {
		t.Fatal(err)
	}
	var lines []docLine
	inFence := false
	for i, text := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(text), "```") {
			inFence = !inFence
			continue
		}
		if !inFence {
			lines = append(lines, docLine{page: page, num: i + 1, text: text})
		}
	}
	return lines
}

// inlineCode is a backticked span; links inside one are text, not links.
var inlineCode = regexp.MustCompile("`[^`]*`")

// markdownLink finds the target of an inline link or image: [text](target) or ![alt](target "title").
var markdownLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// headingSlugs gives the anchors GitHub makes for a page's headings: lower case, spaces to hyphens,
// everything but letters, digits, hyphens and underscores dropped, repeats numbered -1, -2, ….
func headingSlugs(t *testing.T, page string) map[string]bool {
	t.Helper()
	slugs := map[string]bool{}
	seen := map[string]int{}
	for _, l := range readLines(t, page) {
		if !strings.HasPrefix(l.text, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(l.text, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			slugs[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			slugs[slug] = true
		}
		seen[slug]++
	}
	return slugs
}

// Every relative link and image in README.md and docs/ resolves to a file or folder in the
// repository, and a #fragment on a Markdown page names one of its headings. Web links (http, https,
// mailto) are not fetched: the check must not depend on the network.
func TestDocsLinksResolve(t *testing.T) {
	slugCache := map[string]map[string]bool{}
	slugsOf := func(page string) map[string]bool {
		if s, ok := slugCache[page]; ok {
			return s
		}
		s := headingSlugs(t, page)
		slugCache[page] = s
		return s
	}
	checked := 0
	for _, page := range docPages(t) {
		for _, l := range readLines(t, page) {
			text := inlineCode.ReplaceAllString(l.text, "")
			for _, m := range markdownLink.FindAllStringSubmatch(text, -1) {
				target := m[1]
				if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				path, fragment, _ := strings.Cut(target, "#")
				if unescaped, err := url.PathUnescape(path); err == nil {
					path = unescaped
				}
				resolved := page // a pure #anchor points into the page itself
				if path != "" {
					if strings.HasPrefix(path, "/") {
						t.Errorf("%s: link %q is absolute; links are relative to the page", l, target)
						continue
					}
					resolved = filepath.ToSlash(filepath.Join(filepath.Dir(page), path))
					if strings.HasPrefix(resolved, "../") || resolved == ".." {
						t.Errorf("%s: link %q leads outside the repository", l, target)
						continue
					}
					if _, err := os.Stat(filepath.Join(docsRoot, resolved)); err != nil {
						t.Errorf("%s: link %q: no such file in the repository (%s)", l, target, resolved)
						continue
					}
				}
				if fragment != "" && strings.HasSuffix(resolved, ".md") && !slugsOf(resolved)[fragment] {
					t.Errorf("%s: link %q: %s has no heading with the anchor #%s", l, target, resolved, fragment)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("found no relative links at all: the link pattern no longer matches the docs")
	}
}

// A documented method is recognised in two ways, on the pages in methodPages:
//   - in a method table: a table whose header row names a column "Method", "v1.0", "v0.3" or
//     "v0.1 draft"; every backticked token in such a column is a method name (this is how the v1.0
//     names, which look like any other CamelCase word, are found);
//   - anywhere on the page (outside code blocks), a backticked token shaped like a slash method of
//     one of the protocol's namespaces (tasks, message, agent, channels, knowledge), such as
//     `tasks/get` or `channels/publish`; other slashed tokens (`backend/channels`, `kv/bolt`,
//     `application/json`) are paths and types, not methods.
var (
	slashMethod      = regexp.MustCompile(`^(tasks|message|agent|channels|knowledge)(/[A-Za-z]+)+$`)
	backticked       = regexp.MustCompile("`([^`]+)`")
	methodColumnName = map[string]bool{"Method": true, "v1.0": true, "v0.3": true, "v0.1 draft": true}
	tableDelimiter   = regexp.MustCompile(`^\|?\s*:?-{3,}`)
)

// documentedMethods returns each method name documented on the pages, with the first place it is.
func documentedMethods(t *testing.T) map[string]docLine {
	t.Helper()
	methods := map[string]docLine{}
	note := func(name string, l docLine) {
		if _, ok := methods[name]; !ok {
			methods[name] = l
		}
	}
	for _, page := range methodPages {
		lines := readLines(t, page)
		var methodColumns map[int]bool // the current table's method columns; nil outside a method table
		for i, l := range lines {
			for _, m := range backticked.FindAllStringSubmatch(l.text, -1) {
				if slashMethod.MatchString(m[1]) {
					note(m[1], l)
				}
			}
			if !strings.HasPrefix(strings.TrimSpace(l.text), "|") {
				methodColumns = nil
				continue
			}
			cells := tableCells(l.text)
			if i+1 < len(lines) && tableDelimiter.MatchString(strings.TrimSpace(lines[i+1].text)) {
				methodColumns = nil // a header row: which of its columns hold methods?
				for c, cell := range cells {
					if methodColumnName[cell] {
						if methodColumns == nil {
							methodColumns = map[int]bool{}
						}
						methodColumns[c] = true
					}
				}
				continue
			}
			for c, cell := range cells {
				if !methodColumns[c] {
					continue
				}
				for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
					note(m[1], l)
				}
			}
		}
	}
	return methods
}

// tableCells splits a Markdown table row into its trimmed cells.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	cells := strings.Split(row, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// Every method documented in docs/protocol.md, docs/channels.md and docs/knowledge.md is one the
// router of a real hub knows: sent to its JSON-RPC endpoint, none answers -32601 Method not found.
// Params are empty, so most answer -32602 or another error of their own; that is fine, only "not
// found" means the docs name a method that is not there.
func TestDocumentedMethodsExistInTheRouter(t *testing.T) {
	methods := documentedMethods(t)
	for _, want := range []string{"SendMessage", "message/send", "tasks/send", "channels/publish", "knowledge/query"} {
		if _, ok := methods[want]; !ok {
			t.Fatalf("the docs no longer document %s, or the method pattern no longer finds it; found %d methods", want, len(methods))
		}
	}
	h := startInProcess(t, t.TempDir())
	defer h.Stop()
	_, key, err := h.Auth.Principals.Add(t.Context(), "docs")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("checking %d documented methods against the router", len(methods))
	endpoint := h.Agent.BaseURL + "/a2a"
	for name, where := range methods {
		code, err := methodAnswerCode(t.Context(), endpoint, key, name)
		if err != nil {
			t.Errorf("%s: %s: %v", where, name, err)
			continue
		}
		if code == -32601 {
			t.Errorf("%s: documents method %q, which the hub's router answers -32601 Method not found", where, name)
		}
	}
}

// methodAnswerCode sends method with empty params and returns the JSON-RPC error code of the answer
// (0 for a result, or for a stream that opened: the method exists).
func methodAnswerCode(ctx context.Context, endpoint, key, method string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a guard against a hang, not an assertion
	defer cancel()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": map[string]any{}})
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return 0, nil // a stream opened: the router knows the method; closing the body ends it
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	var answer struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return 0, fmt.Errorf("HTTP %d, not a JSON-RPC answer: %s", resp.StatusCode, raw)
	}
	if answer.Error == nil {
		return 0, nil
	}
	return answer.Error.Code, nil
}
