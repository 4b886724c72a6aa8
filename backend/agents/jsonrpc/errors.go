package jsonrpc

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// ErrorObject is a JSON-RPC error as a remote agent sends it. The code is read as a json.Number so
// that a code sent as a numeric string still maps.
type ErrorObject struct {
	Code    json.Number     `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// rpcCodes are the JSON-RPC codes with an a2a-go meaning: the same table a2a-go's own clients use
// (its internal/jsonrpc), plus the hub's own unauthenticated/forbidden codes.
var rpcCodes = map[int64]error{
	-32700: a2a.ErrParseError,
	-32600: a2a.ErrInvalidRequest,
	-32601: a2a.ErrMethodNotFound,
	-32602: a2a.ErrInvalidParams,
	-32603: a2a.ErrInternalError,
	-32000: a2a.ErrServerError,
	-32001: a2a.ErrTaskNotFound,
	-32002: a2a.ErrTaskNotCancelable,
	-32003: a2a.ErrPushNotificationNotSupported,
	-32004: a2a.ErrUnsupportedOperation,
	-32005: a2a.ErrUnsupportedContentType,
	-32006: a2a.ErrInvalidAgentResponse,
	-32007: a2a.ErrExtendedCardNotConfigured,
	-32008: a2a.ErrExtensionSupportRequired,
	-32009: a2a.ErrVersionNotSupported,
	-31401: a2a.ErrUnauthenticated,
	-31403: a2a.ErrUnauthorized,
	-32030: a2a.ErrUnauthenticated,
	-32031: a2a.ErrUnauthorized,
}

// ToA2AError turns a remote JSON-RPC error into an a2a-go error that errors.Is the code's sentinel,
// keeping the remote's own message (and its data, when an object) for the person reading it. A code
// without an a2a meaning is an internal error whose message names the code.
func (e *ErrorObject) ToA2AError() error {
	code, _ := e.Code.Int64()
	sentinel, known := rpcCodes[code]
	msg := e.Message
	if !known {
		sentinel = a2a.ErrInternalError
		msg = fmt.Sprintf("agent error %s: %s", e.Code, e.Message)
	}
	if msg == "" {
		msg = sentinel.Error()
	}
	err := a2a.NewError(sentinel, msg)
	var details map[string]any
	if json.Unmarshal(e.Data, &details) == nil && details != nil {
		err = err.WithDetails(details)
	}
	return err
}

// httpStatusError describes a non-200 answer that carried no JSON-RPC error.
func httpStatusError(resp *http.Response) error {
	msg := fmt.Sprintf("agent answered HTTP %s", resp.Status)
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return a2a.NewError(a2a.ErrUnauthenticated, msg)
	case http.StatusForbidden:
		return a2a.NewError(a2a.ErrUnauthorized, msg)
	}
	return fmt.Errorf("%s", msg)
}
