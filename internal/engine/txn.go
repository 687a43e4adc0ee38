package engine

import (
	"net/http"
	"strings"
)

// Transactions: TransactWriteItems and TransactGetItems.

// tokenEntry is a TransactWriteItems client request token seen in the last
// ten minutes: the request it came with and the answer it got.
type tokenEntry struct{}

// canceled is TransactionCanceledException with one reason per action, in
// the request's order.
func canceled(reasons []reason) *apiError {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = r.Code
	}
	e := newError(http.StatusBadRequest, nsDynamo+"TransactionCanceledException",
		"Transaction cancelled, please refer cancellation reasons for specific reasons [%s]", strings.Join(codes, ", "))
	e.reasons = reasons
	return e
}
