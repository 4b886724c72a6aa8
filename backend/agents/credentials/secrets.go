package credentials

import (
	"context"

	"github.com/agenthub/agenthub/backend/secrets"
)

// The owner's credentials live in backend/secrets; these names let the agents packages speak of them as credentials.
type (
	Secret        = secrets.Secret
	Secrets       = secrets.Store
	SecretsConfig = secrets.Config
)

// OpenSecrets opens the credential store of the desktop modes, keyring or file (see secrets.Open).
func OpenSecrets(dataDir, mode string) (Secrets, error) { return secrets.Open(dataDir, mode) }

// OpenSecretsWith opens the credential store in any mode, database included: the hub's database and
// the key file are in cfg (see secrets.OpenWith).
func OpenSecretsWith(ctx context.Context, cfg SecretsConfig) (Secrets, error) {
	return secrets.OpenWith(ctx, cfg)
}

// Covers reports whether the secret has what the scheme needs.
func Covers(s Secret, sc Scheme) bool {
	switch sc.Kind {
	case SchemeAPIKey:
		return s.APIKey != ""
	case SchemeBearer:
		return s.Token != ""
	case SchemeOAuth2:
		return s.ClientID != "" && s.ClientSecret != ""
	}
	return false
}

// Pinned keeps one agent's scheme credential in this process's memory over st (see secrets.Pinned).
func Pinned(st Secrets, agentID, scheme string, s Secret) Secrets {
	return secrets.Pinned(st, agentID, scheme, s)
}
