package knowledge

// JSON-RPC codes of the knowledge-graph extension.
const (
	CodeInvalidParams     = -32602
	CodeQueryError        = -32010
	CodeUpdateError       = -32011
	CodeSubscriptionError = -32012
	CodeAlignmentError    = -32013
	codeInternal          = -32603
)

// Error is a knowledge-graph failure in the protocol's own terms: a JSON-RPC code, a message and
// optional data (a syntax error's location, an update's verification status).
type Error struct {
	Code    int
	Message string
	Data    any
}

func (e *Error) Error() string { return e.Message }
func (e *Error) RPCCode() int  { return e.Code }
func (e *Error) RPCData() any  { return e.Data }

func errorf(code int, msg string, data any) *Error {
	return &Error{Code: code, Message: msg, Data: data}
}
