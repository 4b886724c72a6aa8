package server

import (
	"errors"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"

	"github.com/agenthub/agenthub/backend/tasks"
)

// rpcError is a JSON-RPC 2.0 error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

// Standard JSON-RPC codes, and A2A's (the same numbers a2a-go uses, so its clients map them back).
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

var a2aCodes = []struct {
	err  error
	code int
}{
	{a2a.ErrParseError, codeParseError},
	{a2a.ErrInvalidRequest, codeInvalidRequest},
	{a2a.ErrMethodNotFound, codeMethodNotFound},
	{a2a.ErrInvalidParams, codeInvalidParams},
	{a2a.ErrInternalError, codeInternal},
	{a2a.ErrServerError, -32000},
	{a2a.ErrTaskNotFound, -32001},
	{a2a.ErrTaskNotCancelable, -32002},
	{a2a.ErrPushNotificationNotSupported, -32003},
	{a2a.ErrUnsupportedOperation, -32004},
	{a2a.ErrUnsupportedContentType, -32005},
	{a2a.ErrInvalidAgentResponse, -32006},
	{a2a.ErrExtendedCardNotConfigured, -32007},
	{a2a.ErrExtensionSupportRequired, -32008},
	{a2a.ErrVersionNotSupported, -32009},
	{push.ErrPushConfigNotFound, -32001},
	{tasks.ErrTaskClosed, codeInvalidParams},
}

// toRPCError maps an error from the handlers to its JSON-RPC error; unknown errors are internal and
// their text is not leaked.
func toRPCError(err error) *rpcError {
	var re *rpcError
	if errors.As(err, &re) {
		return re
	}
	for _, c := range a2aCodes {
		if errors.Is(err, c.err) {
			return &rpcError{Code: c.code, Message: err.Error()}
		}
	}
	return &rpcError{Code: codeInternal, Message: "internal error"}
}

func invalidParams(msg string) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: "invalid params: " + msg}
}
