package wirelog

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// MaskedValue replaces every secret in what is recorded.
const MaskedValue = "•••"

// Masker hides secrets in recorded text: the known secret values in every encoding they travel in
// (raw, URL-encoded, JSON-escaped), credential headers, API-key query parameters, and the fields
// that carry credentials in token requests and responses, whose values may not be known yet.
type Masker struct {
	values  []string
	headers map[string]bool
	query   []*regexp.Regexp
}

var (
	secretJSONField = regexp.MustCompile(`("(?i:access_token|refresh_token|id_token|client_secret|api_?key|password|token|credentials)"\s*:\s*)"(?:[^"\\]|\\.)*"`)
	secretFormField = regexp.MustCompile(`((?:^|[&?\s])(?i:access_token|refresh_token|id_token|client_secret|client_assertion|password)=)[^&\s"]*`)
)

// alwaysMasked are the headers that carry credentials whatever the card says.
var alwaysMasked = map[string]bool{"Authorization": true, "Proxy-Authorization": true, "Cookie": true,
	"Set-Cookie": true, "X-Api-Key": true}

func NewMasker(secrets, headerNames, queryNames []string) *Masker {
	m := &Masker{headers: map[string]bool{}}
	seen := map[string]bool{"": true}
	for _, s := range secrets {
		for _, v := range []string{s, url.QueryEscape(s), url.PathEscape(s), jsonEscaped(s, true), jsonEscaped(s, false)} {
			if !seen[v] {
				seen[v] = true
				m.values = append(m.values, v)
			}
		}
	}
	// Longest first, so a secret containing another is replaced whole.
	slices.SortFunc(m.values, func(a, b string) int { return len(b) - len(a) })
	for _, h := range headerNames {
		m.headers[http.CanonicalHeaderKey(h)] = true
	}
	for _, q := range queryNames {
		m.query = append(m.query, queryParamPattern(q))
	}
	return m
}

// queryParamPatterns caches a pattern per API-key query parameter: a Masker is made per request.
var queryParamPatterns sync.Map

func queryParamPattern(name string) *regexp.Regexp {
	if re, ok := queryParamPatterns.Load(name); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(`([?&]` + regexp.QuoteMeta(url.QueryEscape(name)) + `=)[^&#]*`)
	queryParamPatterns.Store(name, re)
	return re
}

// jsonEscaped is s as it appears inside a JSON string, with or without HTML-safe escapes
// (Go's encoder writes & as \u0026 by default; most others do not).
func jsonEscaped(s string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	enc.Encode(s)
	quoted := strings.TrimSuffix(b.String(), "\n")
	return quoted[1 : len(quoted)-1]
}

func (m *Masker) Text(s string) string {
	for _, v := range m.values {
		s = strings.ReplaceAll(s, v, MaskedValue)
	}
	s = secretJSONField.ReplaceAllString(s, `${1}"`+MaskedValue+`"`)
	return secretFormField.ReplaceAllString(s, `${1}`+MaskedValue)
}

func (m *Masker) URL(u *url.URL) string {
	s := u.Redacted()
	for _, re := range m.query {
		s = re.ReplaceAllString(s, `${1}`+MaskedValue)
	}
	return m.Text(s)
}

func (m *Masker) Header(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		k = http.CanonicalHeaderKey(k)
		masked := make([]string, len(vs))
		for i, v := range vs {
			switch {
			case k == "Authorization" || k == "Proxy-Authorization":
				if scheme, _, ok := strings.Cut(v, " "); ok {
					masked[i] = scheme + " " + MaskedValue // the scheme helps debugging and is no secret
				} else {
					masked[i] = MaskedValue
				}
			case k == "Cookie" || k == "Set-Cookie":
				masked[i] = m.Text(maskCookies(v, k == "Set-Cookie"))
			case alwaysMasked[k] || m.headers[k]:
				masked[i] = MaskedValue
			default:
				masked[i] = m.Text(v)
			}
		}
		out[k] = strings.Join(masked, ", ")
	}
	return out
}

// maskCookies keeps cookie names (and a Set-Cookie's attributes) and hides the values.
func maskCookies(v string, setCookie bool) string {
	parts := strings.Split(v, ";")
	for i, p := range parts {
		if setCookie && i > 0 {
			continue
		}
		if name, _, ok := strings.Cut(p, "="); ok {
			parts[i] = name + "=" + MaskedValue
		} else {
			parts[i] = MaskedValue
		}
	}
	return strings.Join(parts, ";")
}
