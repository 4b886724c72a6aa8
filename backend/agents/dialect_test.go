package agents

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestEndpoints(t *testing.T) {
	const u1, u2 = "https://agent.example/a2a", "https://agent.example/v03"
	tests := []struct {
		name string
		card string
		want []Endpoint
	}{
		{"v1.0 interfaces: JSON-RPC in the card's order, then REST, then gRPC, tenants kept",
			`{"supportedInterfaces":[
				{"url":"https://agent.example/grpc","protocolBinding":"GRPC","protocolVersion":"1.0"},
				{"url":"agent.example:8443","protocolBinding":"GRPC","protocolVersion":"1.0","tenant":"t-grpc"},
				{"url":"https://agent.example/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0","tenant":"t-rest"},
				{"url":"` + u1 + `","protocolBinding":"JSONRPC","protocolVersion":"1.0","tenant":"t1"},
				{"url":"` + u2 + `","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]}`,
			[]Endpoint{{Dialect: V10, URL: u1, Tenant: "t1"}, {Dialect: V03, URL: u2}, {Dialect: V03, URL: u1, Tenant: "t1"}, {Dialect: V01, URL: u1, Tenant: "t1"},
				{Dialect: V10, URL: u2}, {Dialect: V01, URL: u2},
				{Dialect: V10, URL: "https://agent.example/rest", Binding: HTTPJSON, Tenant: "t-rest"},
				{Dialect: V10, URL: "https://agent.example/grpc", Binding: GRPC}, {Dialect: V10, URL: "agent.example:8443", Binding: GRPC, Tenant: "t-grpc"}}},
		{"a v1.0 card with REST only, and its url for v0.3 readers: no JSON-RPC guessed at the REST url",
			`{"url":"https://agent.example/rest","protocolVersion":"0.3","preferredTransport":"HTTP+JSON","supportedInterfaces":[
				{"url":"https://agent.example/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`,
			[]Endpoint{{Dialect: V10, URL: "https://agent.example/rest", Binding: HTTPJSON}, {Dialect: V03, URL: "https://agent.example/rest", Binding: HTTPJSON}}},
		{"v0.3 url and protocolVersion",
			`{"url":"` + u1 + `","protocolVersion":"0.3.0","preferredTransport":"JSONRPC"}`,
			[]Endpoint{{Dialect: V03, URL: u1}, {Dialect: V10, URL: u1}, {Dialect: V01, URL: u1}}},
		{"v0.3 with a non-JSON-RPC main url and a JSON-RPC additional interface",
			`{"url":"https://agent.example/rest","protocolVersion":"0.3.0","preferredTransport":"HTTP+JSON",
			  "additionalInterfaces":[{"url":"` + u2 + `","transport":"JSONRPC"},{"url":"https://agent.example/g","transport":"GRPC"}]}`,
			[]Endpoint{{Dialect: V03, URL: u2}, {Dialect: V10, URL: u2}, {Dialect: V01, URL: u2}, {Dialect: V03, URL: "https://agent.example/rest", Binding: HTTPJSON}}},
		{"v0.3 REST only, from the v1.0 interfaces or the v0.3 fields",
			`{"url":"https://agent.example/rest","protocolVersion":"0.3.0","preferredTransport":"HTTP+JSON","supportedInterfaces":[
				{"url":"https://agent.example/rest","protocolBinding":"HTTP+JSON","protocolVersion":"0.3"}]}`,
			[]Endpoint{{Dialect: V03, URL: "https://agent.example/rest", Binding: HTTPJSON}}},
		{"v0.2 cards use v0.3 names",
			`{"url":"` + u1 + `","protocolVersion":"0.2.5"}`,
			[]Endpoint{{Dialect: V03, URL: u1}, {Dialect: V10, URL: u1}, {Dialect: V01, URL: u1}}},
		{"the hub's own card: both shapes in one document",
			`{"url":"` + u1 + `","protocolVersion":"0.3","preferredTransport":"JSONRPC","supportedInterfaces":[
				{"url":"` + u1 + `","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
				{"url":"` + u1 + `","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]}`,
			[]Endpoint{{Dialect: V10, URL: u1}, {Dialect: V03, URL: u1}, {Dialect: V01, URL: u1}}},
		{"v0.1 draft: a bare url",
			`{"name":"draft","url":"` + u1 + `","capabilities":{"streaming":true},"authentication":{"schemes":[]}}`,
			[]Endpoint{{Dialect: V01, URL: u1}, {Dialect: V10, URL: u1}, {Dialect: V03, URL: u1}}},
		{"AgentVault card",
			`{"schemaVersion":"1.0","humanReadableId":"acme/weather","agentVersion":"1.0.0","name":"Weather",
			  "url":"` + u1 + `","authSchemes":[{"scheme":"apiKey","service_identifier":"acme"}]}`,
			[]Endpoint{{Dialect: V01, URL: u1}, {Dialect: V10, URL: u1}, {Dialect: V03, URL: u1}}},
		{"an interface without a version is taken as v1.0",
			`{"supportedInterfaces":[{"url":"` + u1 + `","protocolBinding":"jsonrpc"}]}`,
			[]Endpoint{{Dialect: V10, URL: u1}, {Dialect: V03, URL: u1}, {Dialect: V01, URL: u1}}},
		{"unknown versions, wrong types and non-http schemes are skipped",
			`{"supportedInterfaces":[{"url":"` + u2 + `","protocolBinding":"JSONRPC","protocolVersion":"7.0"},
				{"url":42,"protocolBinding":"JSONRPC"}, "not an object",
				{"url":"ws://agent.example/ws","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
			  "url":"` + u1 + `","protocolVersion":false}`,
			[]Endpoint{{Dialect: V01, URL: u1}, {Dialect: V10, URL: u1}, {Dialect: V03, URL: u1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Endpoints([]byte(tt.card))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestEndpointsRefusesUnusableCards(t *testing.T) {
	tests := []struct {
		name, card string
		wantErr    string
	}{
		{"not JSON", `{"url":`, "not a JSON object"},
		{"not an object", `["https://agent.example"]`, "not a JSON object"},
		{"relative url", `{"url":"/a2a"}`, `relative URL "/a2a"`},
		{"relative interface url", `{"supportedInterfaces":[{"url":"a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`, "supportedInterfaces[0].url"},
		{"protocol-relative url", `{"url":"//agent.example/a2a","protocolVersion":"0.3"}`, "relative URL"},
		{"no url", `{"name":"nobody"}`, ErrNoEndpoint.Error()},
		{"url of the wrong type", `{"url":["https://agent.example"]}`, ErrNoEndpoint.Error()},
		{"only gRPC of v0.3", `{"supportedInterfaces":[{"url":"agent.example:443","protocolBinding":"GRPC","protocolVersion":"0.3"}]}`, ErrNoEndpoint.Error()},
		{"only a gRPC address that is not one", `{"supportedInterfaces":[{"url":"agent.example","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`, ErrNoEndpoint.Error()},
		{"not http", `{"url":"ftp://agent.example/a2a"}`, ErrNoEndpoint.Error()},
		{"huge", `{"url":"https://agent.example/","padding":"` + strings.Repeat("x", MaxCardBytes) + `"}`, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Endpoints([]byte(tt.card))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Endpoints = %v, %v; want an error containing %q", got, err, tt.wantErr)
			}
		})
	}
	if _, err := Endpoints([]byte(`{}`)); !errors.Is(err, ErrNoEndpoint) {
		t.Fatalf("empty card: %v", err)
	}
}

func TestEndpointsBoundsManyInterfaces(t *testing.T) {
	var ifaces []string
	for i := range 10_000 {
		ifaces = append(ifaces, fmt.Sprintf(`{"url":"https://agent.example/%d","protocolBinding":"JSONRPC","protocolVersion":"1.0"}`, i))
	}
	got, err := Endpoints([]byte(`{"supportedInterfaces":[` + strings.Join(ifaces, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := maxCardInterfaces * len(dialectOrder); len(got) != want {
		t.Fatalf("%d endpoints, want %d (the first %d interfaces in every dialect)", len(got), want, maxCardInterfaces)
	}
}

func TestStreaming(t *testing.T) {
	for card, want := range map[string]bool{
		`{"capabilities":{"streaming":true}}`:   true,
		`{"capabilities":{"streaming":false}}`:  false,
		`{"capabilities":{"streaming":"true"}}`: false,
		`{"capabilities":{}}`:                   false,
		`{"capabilities":"yes"}`:                false,
		`{}`:                                    false,
		`not json`:                              false,
	} {
		if got := Streaming([]byte(card)); got != want {
			t.Errorf("Streaming(%s) = %v, want %v", card, got, want)
		}
	}
}

func TestForeignHosts(t *testing.T) {
	const cardURL = "https://agent.example/.well-known/agent-card.json"
	tests := []struct {
		name, card string
		want       []string
	}{
		{"every interface at home", `{"supportedInterfaces":[
			{"url":"https://agent.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
			{"url":"https://AGENT.example:8443/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},
			{"url":"agent.example:50051","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`, nil},
		{"REST and gRPC elsewhere", `{"supportedInterfaces":[
			{"url":"https://agent.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
			{"url":"https://api.other.example/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},
			{"url":"grpcs://grpc.other.example","protocolBinding":"GRPC","protocolVersion":"1.0"},
			{"url":"api.other.example:443","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`, []string{"api.other.example", "grpc.other.example"}},
		{"a v0.3 url elsewhere", `{"url":"http://10.0.0.9/a2a","protocolVersion":"0.3"}`, []string{"10.0.0.9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := foreignHosts([]byte(tt.card), cardURL); !slices.Equal(got, tt.want) {
				t.Fatalf("foreignHosts = %v, want %v", got, tt.want)
			}
		})
	}
	// Loopback names are one host: a card read from 127.0.0.1 may say localhost or ::1.
	loop := `{"supportedInterfaces":[{"url":"http://localhost:9/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
		{"url":"[::1]:10","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`
	if got := foreignHosts([]byte(loop), "http://127.0.0.1:9/.well-known/agent-card.json"); got != nil {
		t.Fatalf("loopback names: %v", got)
	}
}

// DialOnly keeps the endpoints of the forced dialect and binding, and refuses a card without any;
// DialPreferring puts the chosen binding first and keeps the others after it.
func TestDialOnlyAndPreferring(t *testing.T) {
	card := []byte(`{"supportedInterfaces":[
		{"url":"https://agent.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
		{"url":"https://agent.example/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},
		{"url":"https://agent.example/rest","protocolBinding":"HTTP+JSON","protocolVersion":"0.3"}]}`)
	c, err := DialOnly(t.Context(), card, nil, V03, HTTPJSON)
	if err != nil {
		t.Fatal(err)
	}
	if eps := c.endpoints; len(eps) != 1 || eps[0] != (Endpoint{Dialect: V03, URL: "https://agent.example/rest", Binding: HTTPJSON}) {
		t.Fatalf("forced 0.3 over REST: %+v", eps)
	}
	c.Close()
	if _, err := DialOnly(t.Context(), card, nil, "", GRPC); !errors.Is(err, ErrNoEndpoint) || !strings.Contains(err.Error(), "GRPC") {
		t.Fatalf("forced gRPC on a card without it: %v", err)
	}
	c, err = DialPreferring(t.Context(), card, nil, HTTPJSON)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var order []Binding
	for _, ep := range c.endpoints {
		order = append(order, ep.Binding)
	}
	if order[0] != HTTPJSON || order[1] != HTTPJSON || order[len(order)-1] != JSONRPC {
		t.Fatalf("preferring REST: %+v", c.endpoints)
	}
}
