package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/auth"
)

// Authenticator says who a request acts for (backend/auth's Service): the holder of its API key or
// bearer token, or auth.Anonymous when it carries none, with r's context acting for it and carrying
// its credential (so a stream can end when the credential is revoked, auth.UntilRevoked); and what
// anonymous callers may do.
type Authenticator interface {
	ResolveContext(r *http.Request) (auth.Principal, context.Context, error)
	AnonymousPolicy() auth.AnonymousPolicy
}

// codeUnauthenticated goes with HTTP 401 (who are you?); codeForbidden (guard.go) with 403.
const codeUnauthenticated = -32030

// authenticate admits a JSON-RPC request to next only once it knows who the request acts for, and
// puts that principal in the request's context, where the task store scopes every read by it:
//   - a credential that is present but wrong (unknown key, bad or expired token, two credentials) is
//     HTTP 401 with -32030, never a fallback to anonymous;
//   - no credential is the anonymous principal, admitted only from this computer (a loopback
//     connection that no proxy relayed, onThisComputer) and only as far as the owner's anonymous policy allows: "off" is 401 (authenticate),
//     "read-public" is 403 (anonymous may read the public card, nothing here), "send" admits it.
//
// The refusal comes before the body is read, so it cannot depend on (or echo) what was sent.
//
// fail writes a refusal in the terms of the binding behind it (jsonRPCFail, restFail).
func authenticate(authn Authenticator, tokenURL string, log *slog.Logger, fail func(w http.ResponseWriter, status int, e *rpcError), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ctx, err := authn.ResolveContext(r)
		var refused *auth.AuthError
		switch {
		case errors.As(err, &refused):
			unauthenticated(w, fail, tokenURL, "unauthenticated: "+refused.Reason)
			return
		case StorageUnavailable(err):
			// Who the caller is lives in the database: the request cannot be admitted now.
			log.Warn("resolving a request's credentials: storage unavailable", "error", err)
			w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
			fail(w, http.StatusServiceUnavailable, errStorageUnavailable)
			return
		case err != nil:
			log.Error("resolving a request's credentials", "error", err)
			fail(w, http.StatusInternalServerError, &rpcError{Code: codeInternal, Message: "internal error"})
			return
		}
		if p.Kind == auth.KindAnonymous {
			switch {
			case !onThisComputer(r):
				unauthenticated(w, fail, tokenURL, "unauthenticated: callers that are not on this computer need an API key (X-Api-Key) or a bearer token from "+tokenURL)
				return
			case authn.AnonymousPolicy() == auth.AnonymousSend:
			case authn.AnonymousPolicy() == auth.AnonymousReadPublic:
				fail(w, http.StatusForbidden, &rpcError{Code: codeForbidden,
					Message: "forbidden: callers without a key may only read this hub's public agent card; ask its owner for an API key"})
				return
			default: // off, or a policy this binary does not know
				unauthenticated(w, fail, tokenURL, "unauthenticated: this hub needs an API key (X-Api-Key) or a bearer token from "+tokenURL)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func unauthenticated(w http.ResponseWriter, fail func(w http.ResponseWriter, status int, e *rpcError), tokenURL, message string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="AgentHub", error="invalid_token"`)
	fail(w, http.StatusUnauthorized, &rpcError{Code: codeUnauthenticated, Message: message})
}

// securitySchemes are what the card declares when the agent authenticates its callers: an API key in
// X-Api-Key, or a bearer token from the hub's OAuth2 client-credentials endpoint; either will do.
func securitySchemes(tokenURL string) (a2a.NamedSecuritySchemes, a2a.SecurityRequirementsOptions) {
	return a2a.NamedSecuritySchemes{
			"apiKey": a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationHeader, Name: "X-Api-Key",
				Description: "An API key the hub's owner created (Settings → Access, or `agenthub principals add NAME`)."},
			"oauth2": a2a.OAuth2SecurityScheme{
				Description: "OAuth2 client credentials: client_id is the key's NAME, client_secret the key; the token is an ES256 JWT.",
				Flows:       a2a.ClientCredentialsOAuthFlow{TokenURL: tokenURL, Scopes: map[string]string{}}},
		}, a2a.SecurityRequirementsOptions{
			{"apiKey": a2a.SecuritySchemeScopes{}},
			{"oauth2": a2a.SecuritySchemeScopes{}},
		}
}
