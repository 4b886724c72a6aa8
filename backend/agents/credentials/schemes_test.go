package credentials_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	a2av03 "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/agents/credentials"
)

func credJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func credScheme(t *testing.T, needs credentials.AuthNeeds, name string) credentials.Scheme {
	t.Helper()
	s, ok := needs.Scheme(name)
	if !ok {
		t.Fatalf("no scheme %q in %+v", name, needs.Schemes)
	}
	return s
}

func TestCardAuthReadsAV1CardAsTheSDKWritesIt(t *testing.T) {
	card := &a2a.AgentCard{
		Name: "v1",
		SecuritySchemes: a2a.NamedSecuritySchemes{
			"key":    a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationQuery, Name: "api_key", Description: "issued on request"},
			"jwt":    a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", BearerFormat: "JWT"},
			"basic":  a2a.HTTPAuthSecurityScheme{Scheme: "Basic"},
			"cc":     a2a.OAuth2SecurityScheme{Flows: a2a.ClientCredentialsOAuthFlow{TokenURL: "https://auth.example/token", Scopes: map[string]string{"read": "", "write": ""}}},
			"code":   a2a.OAuth2SecurityScheme{Flows: a2a.AuthorizationCodeOAuthFlow{AuthorizationURL: "https://auth.example/authorize", TokenURL: "https://auth.example/token"}},
			"oidc":   a2a.OpenIDConnectSecurityScheme{OpenIDConnectURL: "https://auth.example/.well-known/openid-configuration"},
			"mtls":   a2a.MutualTLSSecurityScheme{},
			"cookie": a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationCookie, Name: "sid"},
		},
		SecurityRequirements: a2a.SecurityRequirementsOptions{
			{"cc": {"read"}},
			{"key": {}, "mtls": {}},
			{"jwt": {}},
		},
	}
	needs := credentials.CardAuth(credJSON(t, card))

	if !needs.Required {
		t.Error("requirements without an empty alternative must make credentials required")
	}
	want := [][]string{{"cc"}, {"key", "mtls"}, {"jwt"}}
	if !reflect.DeepEqual(needs.Alternatives, want) {
		t.Errorf("alternatives = %v, want %v", needs.Alternatives, want)
	}
	if len(needs.Schemes) != 8 {
		t.Errorf("got %d schemes, want all 8 declared: %+v", len(needs.Schemes), needs.Schemes)
	}
	if s := credScheme(t, needs, "key"); s.Kind != credentials.SchemeAPIKey || s.In != "query" || s.ParamName != "api_key" || s.Description != "issued on request" {
		t.Errorf("key = %+v", s)
	}
	if s := credScheme(t, needs, "cookie"); s.Kind != credentials.SchemeAPIKey || s.In != "cookie" || s.ParamName != "sid" {
		t.Errorf("cookie = %+v", s)
	}
	if s := credScheme(t, needs, "jwt"); s.Kind != credentials.SchemeBearer {
		t.Errorf("jwt = %+v", s)
	}
	// The requirement's scopes are what the client asks for, not every scope the flow offers.
	if s := credScheme(t, needs, "cc"); s.Kind != credentials.SchemeOAuth2 || s.TokenURL != "https://auth.example/token" || !reflect.DeepEqual(s.Scopes, []string{"read"}) {
		t.Errorf("cc = %+v", s)
	}
	for name, why := range map[string]string{"basic": "Basic", "code": "client credentials", "oidc": "OpenID Connect", "mtls": "mutual TLS"} {
		if s := credScheme(t, needs, name); s.Kind != credentials.SchemeUnsupported || !strings.Contains(s.Unsupported, why) {
			t.Errorf("%s = %+v, want unsupported mentioning %q", name, s, why)
		}
	}
}

func TestCardAuthReadsAV03CardAsTheSDKWritesIt(t *testing.T) {
	card := a2av03.AgentCard{
		Name: "v03", ProtocolVersion: "0.3.0", URL: "http://127.0.0.1:1/",
		SecuritySchemes: a2av03.NamedSecuritySchemes{
			"apikey": a2av03.APIKeySecurityScheme{In: a2av03.APIKeySecuritySchemeInHeader, Name: "X-Secret"},
			"oauth":  a2av03.OAuth2SecurityScheme{Flows: a2av03.OAuthFlows{ClientCredentials: &a2av03.ClientCredentialsOAuthFlow{TokenURL: "http://127.0.0.1:1/token", Scopes: map[string]string{"a": "", "b": ""}}}},
		},
		Security: []a2av03.SecurityRequirements{{"apikey": {}}, {"oauth": {}}, {}},
	}
	needs := credentials.CardAuth(credJSON(t, card))

	if needs.Required {
		t.Error("an empty requirement means anonymous callers are accepted too")
	}
	if want := [][]string{{"apikey"}, {"oauth"}, {}}; !reflect.DeepEqual(needs.Alternatives, want) {
		t.Errorf("alternatives = %v, want %v", needs.Alternatives, want)
	}
	if s := credScheme(t, needs, "apikey"); s.Kind != credentials.SchemeAPIKey || s.In != "header" || s.ParamName != "X-Secret" {
		t.Errorf("apikey = %+v", s)
	}
	// No scopes in the requirement: ask for the ones the flow declares.
	if s := credScheme(t, needs, "oauth"); s.Kind != credentials.SchemeOAuth2 || !reflect.DeepEqual(s.Scopes, []string{"a", "b"}) {
		t.Errorf("oauth = %+v", s)
	}
}

func TestCardAuthReadsTheProtoJSONScopeListAndCardsWithoutRequirements(t *testing.T) {
	doc := `{"name": "x", "securitySchemes": {
		"b": {"httpAuthSecurityScheme": {"scheme": "bearer"}},
		"o": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl": "https://a.example/t", "scopes": {}}}}}},
		"securityRequirements": [{"schemes": {"o": {"list": ["s1", "s2"]}}}]}`
	needs := credentials.CardAuth([]byte(doc))
	if s := credScheme(t, needs, "o"); !reflect.DeepEqual(s.Scopes, []string{"s1", "s2"}) {
		t.Errorf("scopes from {list: [...]} = %v", s.Scopes)
	}

	// Declared but never required: each scheme is an alternative of its own, and none is required.
	needs = credentials.CardAuth([]byte(`{"name": "x", "securitySchemes": {
		"b": {"httpAuthSecurityScheme": {"scheme": "bearer"}},
		"k": {"type": "apiKey", "in": "header", "name": "X-K"}}}`))
	if needs.Required || !reflect.DeepEqual(needs.Alternatives, [][]string{{"b"}, {"k"}}) {
		t.Errorf("needs = %+v", needs)
	}
}

func TestCardAuthReadsTheDraftAndAgentVaultShapes(t *testing.T) {
	needs := credentials.CardAuth([]byte(`{"name": "d", "url": "http://x/", "authentication": {"schemes": ["Bearer", "apiKey", "Basic"]}}`))
	if !needs.Required || !reflect.DeepEqual(needs.Alternatives, [][]string{{"Bearer"}, {"apiKey"}, {"Basic"}}) {
		t.Errorf("draft needs = %+v", needs)
	}
	if s := credScheme(t, needs, "apiKey"); s.Kind != credentials.SchemeAPIKey || s.In != "header" || s.ParamName != "X-Api-Key" {
		t.Errorf("draft apiKey = %+v", s)
	}
	if s := credScheme(t, needs, "Basic"); s.Kind != credentials.SchemeUnsupported {
		t.Errorf("draft Basic = %+v", s)
	}
	// The draft sometimes names a single scheme as a string.
	if needs := credentials.CardAuth([]byte(`{"name": "d", "authentication": {"schemes": "OAuth2"}}`)); credScheme(t, needs, "OAuth2").Kind != credentials.SchemeBearer {
		t.Errorf("draft string scheme = %+v", needs)
	}

	needs = credentials.CardAuth([]byte(`{"name": "av", "url": "http://x/", "authSchemes": [
		{"scheme": "apiKey", "service_identifier": "svc"},
		{"scheme": "oauth2", "tokenUrl": "https://av.example/token", "scopes": ["a2a"]},
		{"scheme": "bearer"},
		{"scheme": "apiKey", "description": "a second key"}]}`))
	if !needs.Required {
		t.Error("AgentVault schemes without none are required")
	}
	if want := [][]string{{"apiKey"}, {"oauth2"}, {"bearer"}, {"apiKey-4"}}; !reflect.DeepEqual(needs.Alternatives, want) {
		t.Errorf("alternatives = %v, want %v", needs.Alternatives, want)
	}
	if s := credScheme(t, needs, "apiKey"); s.ParamName != "X-Api-Key" || s.In != "header" {
		t.Errorf("AgentVault apiKey = %+v", s)
	}
	if s := credScheme(t, needs, "oauth2"); s.Kind != credentials.SchemeOAuth2 || s.TokenURL != "https://av.example/token" || !reflect.DeepEqual(s.Scopes, []string{"a2a"}) {
		t.Errorf("AgentVault oauth2 = %+v", s)
	}
	needs = credentials.CardAuth([]byte(`{"name": "av", "authSchemes": [{"scheme": "none"}, {"scheme": "bearer"}]}`))
	if needs.Required {
		t.Error(`an AgentVault "none" scheme means anonymous callers are accepted`)
	}
}

func TestCardAuthNeverFailsOnHostileCards(t *testing.T) {
	cases := map[string]struct {
		doc        string
		unsupports string // a scheme that must be unsupported
		why        string
	}{
		"schemes not an object": {`{"securitySchemes": [1, 2]}`, "securitySchemes", "not an object"},
		"scheme not an object":  {`{"securitySchemes": {"a": "bearer"}}`, "a", "not an object"},
		"unknown type":          {`{"securitySchemes": {"a": {"type": "kerberos"}}}`, "a", "kerberos"},
		"no type":               {`{"securitySchemes": {"a": {"name": "X"}}}`, "a", "type"},
		"apiKey bad location":   {`{"securitySchemes": {"a": {"apiKeySecurityScheme": {"location": "body", "name": "k"}}}}`, "a", "body"},
		"apiKey name wrong":     {`{"securitySchemes": {"a": {"type": "apiKey", "in": "header", "name": 7}}}`, "a", "parameter name"},
		"header injection":      {`{"securitySchemes": {"a": {"type": "apiKey", "in": "header", "name": "X\r\nEvil: 1"}}}`, "a", "parameter name"},
		"oauth2 no flows":       {`{"securitySchemes": {"a": {"type": "oauth2", "flows": "cc"}}}`, "a", "no flows"},
		"oauth2 bad token url":  {`{"securitySchemes": {"a": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "file:///etc/passwd"}}}}}`, "a", "token URL"},
		"openIdConnect":         {`{"securitySchemes": {"a": {"type": "openIdConnect", "openIdConnectUrl": "https://x/"}}}`, "a", "OpenID"},
		"mutualTLS":             {`{"securitySchemes": {"a": {"mtlsSecurityScheme": {}}}}`, "a", "mutual TLS"},
		"undeclared required":   {`{"securitySchemes": {}, "security": [{"ghost": []}]}`, "ghost", "does not declare"},
		"authSchemes not list":  {`{"authSchemes": {"scheme": "apiKey"}}`, "authSchemes", "not a list"},
		"authSchemes unknown":   {`{"authSchemes": [{"scheme": "magic"}]}`, "magic", "magic"},
		"authSchemes junk":      {`{"authSchemes": [42]}`, "scheme1", "not an object"},
		"authentication wrong":  {`{"authentication": {"schemes": 5}}`, "authentication", "not a list"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			needs := credentials.CardAuth([]byte(tc.doc))
			s := credScheme(t, needs, tc.unsupports)
			if s.Kind != credentials.SchemeUnsupported || !strings.Contains(s.Unsupported, tc.why) {
				t.Errorf("%s = %+v, want unsupported mentioning %q", tc.unsupports, s, tc.why)
			}
			if s.ParamName != "" || s.TokenURL != "" {
				t.Errorf("an unsupported scheme must carry nothing usable: %+v", s)
			}
		})
	}
	for _, doc := range []string{``, `null`, `[]`, `"card"`, `{"securityRequirements": "all"}`, `{"security": [1, "x", null]}`,
		`{"securitySchemes": {"a": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://x/", "scopes": [1]}}}}, "security": [{"a": {"list": [1, "s"]}}]}`} {
		needs := credentials.CardAuth([]byte(doc))
		if needs.Schemes == nil || needs.Alternatives == nil {
			t.Errorf("CardAuth(%q) returned nil lists (they serialize as null): %+v", doc, needs)
		}
	}
}
