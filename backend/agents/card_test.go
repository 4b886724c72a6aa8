package agents

import (
	"reflect"
	"testing"
)

func TestCheckCardListsEveryProblemWithoutRefusing(t *testing.T) {
	card := `{
		"name": "Broken", "version": "1",
		"capabilities": {},
		"defaultInputModes": ["text/plain"], "defaultOutputModes": [],
		"supportedInterfaces": [{"url": "/relative", "protocolBinding": "SOAP", "protocolVersion": "1.0"}],
		"protocolVersion": "0.3", "url": "ftp://example.com/a2a",
		"skills": [{"id": "s1", "name": "", "tags": ["x"]}, "nonsense"],
		"provider": {"organization": "Org"},
		"documentationUrl": "not a url",
		"securitySchemes": {"oauth": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl": "token"}}}}}
	}`
	r := CheckCard([]byte(card))
	if !reflect.DeepEqual(r.Versions, []string{"1.0", "0.3"}) {
		t.Fatalf("versions %v", r.Versions)
	}
	want := []Problem{
		{"supportedInterfaces[0].url", `must be an absolute URL, got "/relative"`},
		{"supportedInterfaces[0].protocolBinding", `is "SOAP"; known bindings are JSONRPC, GRPC and HTTP+JSON`},
		{"url", `must be an http or https URL, got "ftp://example.com/a2a"`},
		{"description", "is required"},
		{"defaultOutputModes", "must not be empty"},
		{"skills[1]", "must be an object"},
		{"skills[0].name", "must not be empty"},
		{"skills[0].description", "is required"},
		{"skills[1].id", "is required"},
		{"skills[1].name", "is required"},
		{"skills[1].description", "is required"},
		{"skills[1].tags", "is required"},
		{"documentationUrl", `must be an absolute URL, got "not a url"`},
		{"provider.url", "is required"},
		{"securitySchemes.oauth.oauth2SecurityScheme.flows.clientCredentials.tokenUrl", `must be an absolute URL, got "token"`},
	}
	if !reflect.DeepEqual(r.Problems, want) {
		t.Fatalf("problems:\n%v\nwant\n%v", r.Problems, want)
	}
}

func TestCheckCardReadsTheDraftShapeAndRejectsNonObjects(t *testing.T) {
	r := CheckCard([]byte(`{"name": "Old", "version": "0.1", "url": "http://127.0.0.1:9/", "capabilities": {"streaming": true}, "skills": [{"id": "a", "name": "A"}]}`))
	if !reflect.DeepEqual(r.Versions, []string{"0.1"}) || len(r.Problems) != 0 {
		t.Fatalf("draft card: %+v", r)
	}
	if r := CheckCard([]byte(`[1]`)); len(r.Problems) != 1 || r.Problems[0].Path != "" {
		t.Fatalf("non-object: %+v", r)
	}
	if r := CheckCard([]byte(`{"name":"x","version":"1","url":"http://h/","capabilities":{},"skills":[]}`)); len(r.Problems) != 1 || r.Problems[0].Path != "skills" {
		t.Fatalf("no skills: %+v", r)
	}
}
