package agents_test

import (
	"testing"

	"github.com/agenthub/agenthub/backend/agents"
)

func credFileSecrets(t *testing.T, dir string) agents.Secrets {
	t.Helper()
	s, err := agents.OpenSecrets(dir, "file")
	if err != nil {
		t.Fatal(err)
	}
	return s
}
