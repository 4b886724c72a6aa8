package channels

import (
	"errors"
	"fmt"
)

// JSON-RPC codes of the channels extension. Its spec names the errors without codes; the hub's
// design fixes them (DESIGN.md, "Error codes").
const (
	CodeChannelNotFound  = -32020
	CodePermissionDenied = -32021
	CodeConflict         = -32022
	CodeLimitExceeded    = -32023
	CodeRateLimit        = -32024
	CodeInvalidParams    = -32602
)

// Error is an error of the extension, answered with its JSON-RPC code.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return e.Message }

// RPCCode is the JSON-RPC code the router answers.
func (e *Error) RPCCode() int { return e.Code }

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// notFound is the one answer for a channel that does not exist and for a private channel the caller
// is not a member of, so a private channel never leaks its existence.
func notFound(id string) *Error {
	return errorf(CodeChannelNotFound, "channel not found: %s", id)
}

func invalid(format string, args ...any) *Error {
	return errorf(CodeInvalidParams, "invalid params: "+format, args...)
}

// code is err's extension code, 0 if it is not an *Error.
func code(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}
