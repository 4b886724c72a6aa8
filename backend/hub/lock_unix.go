//go:build unix

package hub

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on path, so two processes never run the same agent over
// the same data (the second would "recover" the first one's running tasks). The kernel drops the lock
// when the process dies, even by kill -9.
func lockFile(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s is %w", path, ErrInUse)
	}
	return func() { f.Close() }, nil
}
