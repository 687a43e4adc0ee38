package engine

import (
	"errors"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TransactGetItems: up to 100 reads, each of its own item, answered
// together from one state of the tables.

type (
	transactGetInput struct {
		TransactItems          []struct{ Get *txnGet }
		ReturnConsumedCapacity string
	}
	txnGet struct {
		TableName                *string
		Key                      item
		ProjectionExpression     *string
		ExpressionAttributeNames map[string]string
	}
)

// txnKeyError is DynamoDB Local's answer to a key of a TransactGetItems
// that does not fit its table: a TransactionCanceledException that carries
// the validation message and no cancellation reasons. An empty key value is
// a plain ValidationException there too.
func txnKeyError(err error) error {
	var api *apiError
	if !errors.As(err, &api) || api.code() != "ValidationException" ||
		strings.HasPrefix(api.msg, "One or more parameter values are not valid.") {
		return err
	}
	return newError(http.StatusBadRequest, nsDynamo+"TransactionCanceledException", "%s", api.msg)
}

func (e *Engine) transactGetItems(s *scope, in *transactGetInput) (any, error) {
	nullItems := validation(msgConstraintTransactItemsNotNull)
	switch {
	case len(in.TransactItems) == 0:
		return nil, nullItems
	case len(in.TransactItems) > maxTxnActions:
		return nil, validation(msgMemberLengthAtMost, maxTxnActions)
	}
	// DynamoDB Local checks the Gets one after the other, each whole: its
	// table, its key (one item per Get), its projection.
	for _, ti := range in.TransactItems {
		if ti.Get == nil {
			return nil, nullItems
		}
	}
	gets := make([]*checkedGet, len(in.TransactItems))
	seen := map[string]bool{}
	for i, ti := range in.TransactItems {
		g, err := checkTxnGet(s, ti.Get, seen)
		if err != nil {
			return nil, err
		}
		gets[i] = g
	}
	responses, caps := readTxnGets(gets)
	out := map[string]any{"Responses": responses}
	if c := caps.render(in.ReturnConsumedCapacity, "ReadCapacityUnits", false); c != nil {
		out["ConsumedCapacity"] = c
	}
	return out, nil
}

// checkedGet is one Get of a TransactGetItems, checked.
type checkedGet struct {
	in   *txnGet
	t    *table
	proj *projection_
	hash types.AttributeValue
	rng  types.AttributeValue
}

// checkTxnGet checks one Get whole: its table, its key (refusing a key in
// seen, the items of the Gets before it), its projection.
func checkTxnGet(s *scope, in *txnGet, seen map[string]bool) (*checkedGet, error) {
	g := &checkedGet{in: in}
	if g.in.Key == nil {
		return nil, validation(msgGetConditionKeyNotKey)
	}
	if g.in.TableName == nil {
		return nil, validation(msgRequestedResourceNotFound)
	}
	t, err := s.lookup(*g.in.TableName)
	if err != nil {
		return nil, err
	}
	g.t = t
	if g.hash, g.rng, err = t.keyOf(g.in.Key); err != nil {
		return nil, txnKeyError(err)
	}
	k := itemID(t, g.hash, g.rng)
	if seen[k] {
		return nil, validation(msgTransactionRequestCannotIncludeMultiple)
	}
	seen[k] = true
	x, err := newExprs(g.in.ExpressionAttributeNames, nil)
	if err != nil {
		return nil, err
	}
	if g.proj, err = x.projection(g.in.ProjectionExpression); err != nil {
		return nil, err
	}
	if err := x.done(); err != nil {
		return nil, err
	}
	if err := t.scalarKeys(x.names, g.in.ProjectionExpression); err != nil {
		return nil, err
	}
	return g, nil
}

// readTxnGets reads every Get's item, projected, with the capacity
// consumed.
func readTxnGets(gets []*checkedGet) ([]map[string]any, *capacities) {
	caps := &capacities{}
	responses := make([]map[string]any, len(gets))
	for i, g := range gets {
		responses[i] = map[string]any{}
		size := 0
		if en := g.t.items.get(g.hash, g.rng); en != nil {
			size = en.size()
			m := g.proj.apply(en.item())
			if m == nil {
				m = map[string]types.AttributeValue{}
			}
			responses[i]["Item"] = wireItem(m)
		}
		// A transactional read costs twice a consistent one.
		caps.add(g.t, 2*readUnits(size, true), nil, 1)
	}
	return responses, caps
}
