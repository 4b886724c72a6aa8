//go:build !unix

package hub

// lockFile is a no-op where flock is unavailable; the desktop build there relies on Wails'
// single-instance lock instead.
func lockFile(path string) (release func(), err error) { return func() {}, nil }
