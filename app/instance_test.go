package app

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/agenthub/agenthub/backend/hub"
)

func TestInstanceIDIsOnePerDataDir(t *testing.T) {
	dir := t.TempDir()
	a, err := instanceID(dir)
	if err != nil {
		t.Fatal(err)
	}
	// the same directory however it is written (relative, trailing slash) is the same instance
	t.Chdir(filepath.Dir(dir))
	for _, same := range []string{dir + string(os.PathSeparator), filepath.Base(dir), "./" + filepath.Base(dir) + "/."} {
		if b, err := instanceID(same); err != nil || b != a {
			t.Errorf("instanceID(%q) = %q, %v; want %q like %q", same, b, err, a, dir)
		}
	}
	other, err := instanceID(filepath.Join(dir, "other"))
	if err != nil || other == a {
		t.Errorf("another data dir got %q, %v; want an id other than %q", other, err, a)
	}
	// a D-Bus bus name element: letters, digits, '_'; not starting with a digit
	if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(a) {
		t.Errorf("instanceID = %q: not usable in a D-Bus name", a)
	}
}

func TestInstanceIDDefaultDataDir(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	def, err := instanceID("")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := hub.DefaultDataDir()
	if err != nil {
		t.Fatal(err)
	}
	if explicit, _ := instanceID(dir); explicit != def {
		t.Errorf(`instanceID("") = %q, but the default dir written out gives %q`, def, explicit)
	}
}
