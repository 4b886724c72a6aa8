package credentials

import "github.com/agenthub/agenthub/backend/secrets"

// The owner's credentials live in backend/secrets; these names let the agents packages speak of them as credentials.
type (
	Secret  = secrets.Secret
	Secrets = secrets.Store
)

// OpenSecrets opens the credential store (see secrets.Open).
func OpenSecrets(dataDir, mode string) (Secrets, error) { return secrets.Open(dataDir, mode) }

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
