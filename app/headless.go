//go:build !desktop

package app

import "errors"

// Available reports whether this binary has the desktop window.
const Available = false

// ErrNoWindow is Run's answer in a binary built without the desktop window.
var ErrNoWindow = errors.New("this binary was built without the desktop window (build tag `desktop`); use `agenthub serve`")

// Run is unavailable without the `desktop` build tag.
func Run(Options) error { return ErrNoWindow }
