package credentials

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// SchemeKind is how a client proves who it is to an agent, as far as AgentHub can do it.
type SchemeKind string

const (
	SchemeAPIKey      SchemeKind = "apiKey"
	SchemeBearer      SchemeKind = "bearer"
	SchemeOAuth2      SchemeKind = "oauth2"
	SchemeUnsupported SchemeKind = "unsupported"
)

// Scheme is one way a card says a client may authenticate.
type Scheme struct {
	Name        string     `json:"name"` // the key in securitySchemes (or a synthesized one for v0.1/AgentVault)
	Kind        SchemeKind `json:"kind"`
	In          string     `json:"in,omitempty"`        // apiKey: header | query | cookie
	ParamName   string     `json:"paramName,omitempty"` // apiKey: header/query/cookie name (AgentVault default X-Api-Key)
	TokenURL    string     `json:"tokenUrl,omitempty"`  // oauth2 client credentials
	Scopes      []string   `json:"scopes,omitempty"`
	Description string     `json:"description,omitempty"`
	Unsupported string     `json:"unsupported,omitempty"` // why it can't be used here (mTLS, OIDC, authorization code...)
}

// AuthNeeds is what a card asks: the declared schemes and the alternatives (an OR of ANDs of scheme
// names). An empty alternative means the agent also accepts callers without credentials.
type AuthNeeds struct {
	Schemes      []Scheme   `json:"schemes"`
	Alternatives [][]string `json:"alternatives"`
	Required     bool       `json:"required"`
}

// DefaultAPIKeyHeader is where the AgentVault profile (and the v0.1 draft, by convention) sends an API key.
const DefaultAPIKeyHeader = "X-Api-Key"

// Scheme returns the declared scheme with that name.
func (n AuthNeeds) Scheme(name string) (Scheme, bool) {
	i := slices.IndexFunc(n.Schemes, func(s Scheme) bool { return s.Name == name })
	if i < 0 {
		return Scheme{}, false
	}
	return n.Schemes[i], true
}

// Hint says in a few words what the owner has to provide for the scheme.
func (s Scheme) Hint() string {
	switch s.Kind {
	case SchemeAPIKey:
		where := map[string]string{"header": "header", "query": "query parameter", "cookie": "cookie"}[s.In]
		return fmt.Sprintf("API key in %s %s", where, s.ParamName)
	case SchemeBearer:
		return "bearer token"
	case SchemeOAuth2:
		return "OAuth2 client ID and secret for " + s.TokenURL
	default:
		return "cannot be used here: " + s.Unsupported
	}
}

// CardAuth reads what a card asks of a client: v1.0 (securitySchemes wrapped by kind, and
// securityRequirements), v0.3 (securitySchemes with a type, and security), the AgentVault profile
// (authSchemes) or the v0.1 draft (authentication.schemes). It never fails: whatever cannot be
// understood or used becomes a SchemeUnsupported scheme that says why.
func CardAuth(card []byte) AuthNeeds {
	needs := AuthNeeds{Schemes: []Scheme{}, Alternatives: [][]string{}}
	var doc map[string]any
	if json.Unmarshal(card, &doc) != nil {
		return needs
	}
	switch {
	case doc["securitySchemes"] != nil || doc["securityRequirements"] != nil || doc["security"] != nil:
		openAPIAuth(doc, &needs)
	case doc["authSchemes"] != nil:
		agentVaultAuth(doc["authSchemes"], &needs)
	case doc["authentication"] != nil:
		draftAuth(doc["authentication"], &needs)
	}
	slices.SortFunc(needs.Schemes, func(a, b Scheme) int { return strings.Compare(a.Name, b.Name) })
	return needs
}

// openAPIAuth reads the OpenAPI-style declarations of v1.0 and v0.3 (a card may carry both shapes).
func openAPIAuth(doc map[string]any, needs *AuthNeeds) {
	declared := map[string]Scheme{}
	switch schemes := doc["securitySchemes"].(type) {
	case nil:
	case map[string]any:
		for name, v := range schemes {
			declared[name] = parseOpenAPIScheme(name, v)
		}
	default:
		declared["securitySchemes"] = unsupported("securitySchemes", "the card's securitySchemes is not an object")
	}

	reqs, ok := doc["securityRequirements"].([]any)
	if !ok {
		reqs, _ = doc["security"].([]any)
	}
	requested := map[string][]string{} // scopes per scheme, from the requirements
	for _, r := range reqs {
		obj, ok := r.(map[string]any)
		if !ok {
			continue
		}
		if inner, ok := obj["schemes"].(map[string]any); ok { // v1.0 wraps the map in "schemes"
			obj = inner
		}
		alt := append([]string{}, slices.Sorted(maps.Keys(obj))...) // [] not null: anonymous access
		for _, name := range alt {
			requested[name] = append(requested[name], scopeList(obj[name])...)
			if _, ok := declared[name]; !ok {
				declared[name] = unsupported(name, "the card requires it but does not declare it in securitySchemes")
			}
		}
		needs.Alternatives = append(needs.Alternatives, alt)
	}

	for name, s := range declared {
		if s.Kind == SchemeOAuth2 && len(requested[name]) > 0 {
			s.Scopes = dedupe(requested[name])
		}
		needs.Schemes = append(needs.Schemes, s)
	}
	if len(needs.Alternatives) == 0 {
		for _, name := range slices.Sorted(maps.Keys(declared)) {
			needs.Alternatives = append(needs.Alternatives, []string{name})
		}
		return
	}
	needs.Required = !slices.ContainsFunc(needs.Alternatives, func(a []string) bool { return len(a) == 0 })
}

// v1.0 wraps each scheme in a key naming its kind; v0.3 has a "type" field. Compatibility cards
// carry both, and the v1.0 form wins.
var v1SchemeKeys = [][2]string{
	{"apiKeySecurityScheme", "apiKey"},
	{"httpAuthSecurityScheme", "http"},
	{"oauth2SecurityScheme", "oauth2"},
	{"openIdConnectSecurityScheme", "openIdConnect"},
	{"mtlsSecurityScheme", "mutualTLS"},
}

func parseOpenAPIScheme(name string, v any) Scheme {
	obj, ok := v.(map[string]any)
	if !ok {
		return unsupported(name, "the scheme is not an object")
	}
	kind, body := "", obj
	for _, pair := range v1SchemeKeys {
		if inner, ok := obj[pair[0]].(map[string]any); ok {
			kind, body = pair[1], inner
			break
		}
	}
	if kind == "" {
		kind, _ = obj["type"].(string)
	}
	desc, _ := body["description"].(string)
	s := Scheme{Name: name, Description: desc}
	switch kind {
	case "apiKey":
		in, _ := body["location"].(string) // v1.0
		if in == "" {
			in, _ = body["in"].(string) // v0.3
		}
		param, _ := body["name"].(string)
		return apiKeyScheme(s, in, param)
	case "http":
		scheme, _ := body["scheme"].(string)
		if !strings.EqualFold(scheme, "bearer") {
			return unsupportedAs(s, fmt.Sprintf("HTTP %q authentication is not supported; only Bearer is", scheme))
		}
		s.Kind = SchemeBearer
		return s
	case "oauth2":
		return oauth2Scheme(s, body)
	case "openIdConnect":
		return unsupportedAs(s, "OpenID Connect needs an interactive sign-in, which AgentHub does not do")
	case "mutualTLS":
		return unsupportedAs(s, "mutual TLS needs a client certificate, which AgentHub does not manage")
	case "":
		return unsupportedAs(s, "the scheme does not say its type")
	default:
		return unsupportedAs(s, fmt.Sprintf("unknown scheme type %q", kind))
	}
}

func apiKeyScheme(s Scheme, in, param string) Scheme {
	if in != "header" && in != "query" && in != "cookie" {
		return unsupportedAs(s, fmt.Sprintf("an API key location must be header, query or cookie, not %q", in))
	}
	if strings.TrimSpace(param) == "" || strings.ContainsAny(param, "\r\n:;=") {
		return unsupportedAs(s, fmt.Sprintf("the API key's parameter name %q is not usable", param))
	}
	s.Kind, s.In, s.ParamName = SchemeAPIKey, in, param
	return s
}

// oauth2Scheme accepts the client credentials flow only: the other flows need a person at a browser.
func oauth2Scheme(s Scheme, body map[string]any) Scheme {
	flows, ok := body["flows"].(map[string]any)
	if !ok {
		return unsupportedAs(s, "the OAuth2 scheme declares no flows")
	}
	cc, ok := flows["clientCredentials"].(map[string]any)
	if !ok {
		names := slices.Sorted(maps.Keys(flows))
		return unsupportedAs(s, fmt.Sprintf("only the OAuth2 client credentials flow is supported; the card offers %s", strings.Join(names, ", ")))
	}
	tokenURL, _ := cc["tokenUrl"].(string)
	if !httpURL(tokenURL) {
		return unsupportedAs(s, fmt.Sprintf("the OAuth2 token URL %q is not an http(s) URL", tokenURL))
	}
	s.Kind, s.TokenURL = SchemeOAuth2, tokenURL
	if scopes, ok := cc["scopes"].(map[string]any); ok {
		s.Scopes = slices.Sorted(maps.Keys(scopes))
	}
	return s
}

// agentVaultAuth reads the AgentVault profile's authSchemes list: each entry is one alternative.
func agentVaultAuth(v any, needs *AuthNeeds) {
	list, ok := v.([]any)
	if !ok {
		needs.Schemes = append(needs.Schemes, unsupported("authSchemes", "the card's authSchemes is not a list"))
		needs.Alternatives = append(needs.Alternatives, []string{"authSchemes"})
		needs.Required = true
		return
	}
	anonymous := false
	for i, item := range list {
		obj, _ := item.(map[string]any)
		kind, _ := obj["scheme"].(string)
		if strings.EqualFold(kind, "none") {
			anonymous = true
			needs.Alternatives = append(needs.Alternatives, []string{})
			continue
		}
		name := uniqueName(needs.Schemes, kind, i)
		desc, _ := obj["description"].(string)
		s := Scheme{Name: name, Description: desc}
		switch {
		case obj == nil:
			s = unsupportedAs(s, "the entry is not an object")
		case strings.EqualFold(kind, "apiKey"):
			s = apiKeyScheme(s, "header", DefaultAPIKeyHeader)
		case strings.EqualFold(kind, "bearer"):
			s.Kind = SchemeBearer
		case strings.EqualFold(kind, "oauth2"):
			tokenURL, _ := obj["tokenUrl"].(string)
			if !httpURL(tokenURL) {
				s = unsupportedAs(s, fmt.Sprintf("the OAuth2 token URL %q is not an http(s) URL", tokenURL))
			} else {
				s.Kind, s.TokenURL, s.Scopes = SchemeOAuth2, tokenURL, scopeList(obj["scopes"])
			}
		default:
			s = unsupportedAs(s, fmt.Sprintf("unknown scheme %q", kind))
		}
		needs.Schemes = append(needs.Schemes, s)
		needs.Alternatives = append(needs.Alternatives, []string{name})
	}
	needs.Required = len(needs.Schemes) > 0 && !anonymous
}

// draftAuth reads the v0.1 draft's authentication.schemes: names of HTTP schemes, any one of which
// will do. The draft names no parameters, so an API key goes in the conventional X-Api-Key header and
// OAuth2/JWT mean a bearer token the owner obtained elsewhere.
func draftAuth(v any, needs *AuthNeeds) {
	obj, _ := v.(map[string]any)
	var names []string
	switch s := obj["schemes"].(type) {
	case string:
		names = []string{s}
	case []any:
		for _, item := range s {
			if n, ok := item.(string); ok {
				names = append(names, n)
			}
		}
	default:
		needs.Schemes = append(needs.Schemes, unsupported("authentication", "the card's authentication.schemes is not a list of names"))
		needs.Alternatives = append(needs.Alternatives, []string{"authentication"})
		needs.Required = true
		return
	}
	anonymous := false
	for i, raw := range names {
		kind := strings.ToLower(strings.TrimSpace(raw))
		if kind == "" || kind == "none" {
			anonymous = true
			needs.Alternatives = append(needs.Alternatives, []string{})
			continue
		}
		s := Scheme{Name: uniqueName(needs.Schemes, raw, i)}
		switch kind {
		case "bearer", "oauth2", "oauth", "jwt", "token":
			s.Kind = SchemeBearer
		case "apikey", "api_key", "api-key", "x-api-key":
			s = apiKeyScheme(s, "header", DefaultAPIKeyHeader)
		default:
			s = unsupportedAs(s, fmt.Sprintf("the draft scheme %q is not supported", raw))
		}
		needs.Schemes = append(needs.Schemes, s)
		needs.Alternatives = append(needs.Alternatives, []string{s.Name})
	}
	needs.Required = len(needs.Schemes) > 0 && !anonymous
}

// uniqueName synthesizes a stable scheme name for a list entry, so saved secrets still match after
// the card is fetched again.
func uniqueName(existing []Scheme, kind string, index int) string {
	name := strings.TrimSpace(kind)
	if name == "" {
		name = fmt.Sprintf("scheme%d", index+1)
	}
	if slices.ContainsFunc(existing, func(s Scheme) bool { return s.Name == name }) {
		name = fmt.Sprintf("%s-%d", name, index+1)
	}
	return name
}

// scopeList reads scopes as a list of strings, or the v1.0 proto-JSON form {"list": [...]}.
func scopeList(v any) []string {
	if obj, ok := v.(map[string]any); ok {
		v = obj["list"]
	}
	list, _ := v.([]any)
	var out []string
	for _, item := range list {
		if s, ok := item.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

func dedupe(list []string) []string {
	slices.Sort(list)
	return slices.Compact(list)
}

func unsupported(name, why string) Scheme {
	return Scheme{Name: name, Kind: SchemeUnsupported, Unsupported: why}
}

func unsupportedAs(s Scheme, why string) Scheme {
	s.Kind, s.Unsupported, s.In, s.ParamName, s.TokenURL, s.Scopes = SchemeUnsupported, why, "", "", "", nil
	return s
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// AuthError says why an agent could not be called for lack of, or with wrong, credentials.
type AuthError struct {
	Status  int      // HTTP status from the agent (or its token endpoint); 0 when nothing was sent
	Scheme  string   // the scheme(s) whose credentials were used, joined by "+"; "" when none were
	Missing []string // the schemes to set credentials for, when none were usable
	Detail  string   // what the agent said, secrets masked

	hints    map[string]string // per missing scheme, what the owner has to provide
	tokenURL string            // set when the token endpoint, not the agent, refused
}

func (e *AuthError) Error() string {
	var b strings.Builder
	status := ""
	if e.Status != 0 {
		status = fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	switch {
	case e.tokenURL != "":
		fmt.Fprintf(&b, "the token endpoint %s refused the client credentials%s", e.tokenURL, status)
	case len(e.Missing) > 0:
		fmt.Fprintf(&b, "the agent requires credentials%s: set ", status)
		for i, name := range e.Missing {
			if i > 0 {
				b.WriteString(" and ")
			}
			fmt.Fprintf(&b, "%q", name)
			if h := e.hints[name]; h != "" {
				fmt.Fprintf(&b, " (%s)", h)
			}
		}
		if e.Detail != "" {
			fmt.Fprintf(&b, "; the agent said: %s", e.Detail)
		}
		return b.String()
	case e.Scheme == "" && e.Status == 401:
		fmt.Fprintf(&b, "the agent asks for credentials its card does not describe%s", status)
	case e.Status == 403:
		fmt.Fprintf(&b, "the agent refused access with these credentials%s", status)
	default:
		fmt.Fprintf(&b, "the agent refused the credentials%s", status)
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}
