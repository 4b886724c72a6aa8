package agents

import "github.com/agenthub/agenthub/backend/secrets"

// The owner's credentials live in backend/secrets; these names keep this package's API as it was.
type (
	Secret  = secrets.Secret
	Secrets = secrets.Store
)

// OpenSecrets opens the credential store (see secrets.Open).
func OpenSecrets(dataDir, mode string) (Secrets, error) { return secrets.Open(dataDir, mode) }

// covers reports whether the secret has what the scheme needs.
func covers(s Secret, sc Scheme) bool {
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
