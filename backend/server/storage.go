package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/agenthub/agenthub/backend/store"
)

// The hub's database can be out of reach (PostgreSQL restarting, the network to it down: see
// store.ErrUnavailable). A call that needed it then answers at once, and says so in words a client
// can act on: the call did not happen, try again shortly. Neither the driver's error (host, port, user)
// nor a stack reaches the client; the log has the cause.
//
// Over JSON-RPC the answer is a JSON-RPC error with HTTP 200, like every other JSON-RPC error of the
// endpoint: a2a-go's clients (v0.3 and v2 alike) read no body of a non-200 answer and report only
// "unexpected HTTP status: 503 Service Unavailable", while with 200 they surface the error below
// (an a2a.ErrInternalError carrying its message). @a2a-js/sdk reads the JSON-RPC error either way.
// Plain HTTP routes, and a JSON-RPC request refused before its body is read (authentication), answer
// HTTP 503 with Retry-After.

// RetryAfterSeconds is the Retry-After of a 503 for an unreachable database: the pgx connect
// timeout is 5 s, and a restarted PostgreSQL is usually back within a few seconds.
const RetryAfterSeconds = 5

// storageMessage is the message of the JSON-RPC error for an unreachable database.
const storageMessage = "storage unavailable: the hub's database cannot be reached; retry shortly"

// errStorageUnavailable is the JSON-RPC error for an unreachable database: -32603 (internal error,
// which every A2A SDK maps to its internal error), a message naming storage, and, as data, a
// google.rpc.ErrorInfo (v1.0's shape; inDialect makes it an object for v0.3 and drops it for the
// draft) whose reason a program can test.
var errStorageUnavailable = &rpcError{Code: codeInternal, Message: storageMessage, Data: []any{map[string]any{
	"@type":    "type.googleapis.com/google.rpc.ErrorInfo",
	"reason":   "STORAGE_UNAVAILABLE",
	"domain":   "agenthub",
	"metadata": map[string]string{"retryAfterSeconds": strconv.Itoa(RetryAfterSeconds)},
}}}

// StorageUnavailable reports whether err means the hub's database cannot be reached: store's mark
// (errors.Is through the feature packages' wrapping), or, for an error that a library turned into
// text on the way (a2a-go's handlers put err.Error() in their JSON-RPC errors), the mark's words.
func StorageUnavailable(err error) bool {
	return err != nil && (store.Unavailable(err) || storageText(err.Error()))
}

// storageText tells the message of an unavailable database's error (store's mark opens it, wherever
// a package's own prefix put it) or the hub's own answer for it.
func storageText(msg string) bool {
	return strings.Contains(msg, store.ErrUnavailable.Error()+": ")
}

// WriteUnavailable answers a plain HTTP request that needed the unreachable database: 503, Retry-After.
func WriteUnavailable(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	http.Error(w, storageMessage, http.StatusServiceUnavailable)
}
