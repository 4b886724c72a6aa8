// Package credentials is how the hub proves who it is to a remote agent: what an agent's card asks
// for, the owner's saved secrets, and the HTTP client that applies them to every call.
//
// The room, file by file:
//
//	schemes.go    CardAuth: the security schemes a card asks for (v1.0/v0.3 OpenAPI-style, the
//	              v0.1 draft's and AgentVault's), as AuthNeeds of alternatives; AuthError, what a
//	              refusal tells the owner.
//	secrets.go    Secret and Secrets (the store itself is backend/secrets), and Covers: whether a
//	              saved secret has what a scheme needs.
//	transport.go  NewHTTPClient: the client of every call to one agent. It chooses the first
//	              alternative the saved secrets cover, applies it, records the traffic to the wire log
//	              with every secret masked, and turns a 401/403 into an *AuthError. MaskerOf hands
//	              agents the masker for what an agent echoes back.
//	tokens.go     the OAuth2 client-credentials token of a scheme, cached until it expires or is
//	              refused, its fetch recorded under the call that needed it.
//	redirect.go   SameOriginRedirects: credentials (and cards) never follow a redirect to another
//	              origin (*RedirectError).
//
// Its tests drive the client against real agents on loopback; one (TestConnMasksSecretsTheAgentEchoes)
// goes through agents.Dial, as the hub does, which an external test package may import.
//
// What it must not touch: dialects and their shapes (agents, agents/draft), the registry of agents,
// the wire log's storage (it only hands entries to a wirelog.Recorder). It stands on agents/wirelog
// and must not import backend/agents.
package credentials
