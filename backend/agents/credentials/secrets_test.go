package credentials_test

import (
	"testing"

	"github.com/agenthub/agenthub/backend/agents/credentials"
)

func credFileSecrets(t *testing.T, dir string) credentials.Secrets {
	t.Helper()
	s, err := credentials.OpenSecrets(dir, "file")
	if err != nil {
		t.Fatal(err)
	}
	return s
}
