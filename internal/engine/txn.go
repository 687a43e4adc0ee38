package engine

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/cond"
)

// Transactions: TransactWriteItems and TransactGetItems. Every request runs
// under the engine's one lock, so a transaction is atomic and serializable
// by construction; what is left is DynamoDB's validation, all-or-nothing
// conditions, cancellation reasons and client request tokens.
//
// TransactWriteItems checks a request in the phases DynamoDB Local checks
// it, so that the first error it reports is Local's:
//
//  1. the request's shape, action by action: one operation per action, the
//     required members, table names, values, item sizes, expressions and
//     what an update expression's placeholders and operands allow (a
//     ValidationException), then the 4 MB payload;
//  2. the tables (ResourceNotFoundException);
//  3. the keys, action by action: missing or malformed key attributes (a
//     ValidationException), two actions on one item;
//  4. every action against the stored items: a condition that fails is the
//     reason ConditionalCheckFailed, a key or index key of the wrong type,
//     an update of a key attribute and an updated item over 400 KB are the
//     reason ValidationError, and any other error of an update (an operand
//     of the wrong type) is a ValidationException for the whole request.
//
// Only when every action's reason is None are the writes applied.

const (
	// maxTxnActions is DynamoDB's limit on the actions of a transaction.
	maxTxnActions = 100
	// maxTxnPayload is DynamoDB's limit on the aggregate size of a
	// transaction's items.
	maxTxnPayload = 4 << 20
	// tokenLife is how long DynamoDB remembers a client request token.
	tokenLife = 10 * time.Minute
	// maxTokenLen is DynamoDB's limit on a client request token.
	maxTokenLen = 36
)

type (
	transactWriteInput struct {
		TransactItems               []json.RawMessage
		ClientRequestToken          *string
		ReturnConsumedCapacity      string
		ReturnItemCollectionMetrics string
		// actions are TransactItems as decodeFast read them; nil when
		// encoding/json read the request, and each is decoded in turn.
		actions []transactWriteItem
	}
	transactWriteItem struct {
		ConditionCheck, Put, Delete, Update *txnAction
	}
	// txnAction is the members of Put, Update, Delete and ConditionCheck.
	txnAction struct {
		TableName                           *string
		Key                                 item
		Item                                item
		ConditionExpression                 *string
		UpdateExpression                    *string
		ExpressionAttributeNames            map[string]string
		ExpressionAttributeValues           map[string]av
		ReturnValuesOnConditionCheckFailure string
	}
)

// txnKey is an item a transaction touched.
type txnKey struct {
	table     string
	hash, rng types.AttributeValue
}

// txnWrite is one action of a TransactWriteItems on its way through the
// phases.
type txnWrite struct {
	kind   string // the member's name in DynamoDB's messages: put, update, delete, conditionCheck
	in     *txnAction
	w      *write
	reason error // an error of phase 3 DynamoDB reports as the action's ValidationError
}

// canceled is TransactionCanceledException with one reason per action, in
// the request's order.
func canceled(reasons []reason) *apiError {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = r.Code
	}
	e := newError(http.StatusBadRequest, nsDynamo+"TransactionCanceledException",
		msgTransactionCancelledPleaseReferCancellation, strings.Join(codes, ", "))
	e.reasons = reasons
	return e
}

// notNull is DynamoDB's message for a required member of an action that is
// missing; i counts from 1.
func notNull(i int, kind, member string) *apiError {
	return validation(msgConstraintTransactItemMemberNotNull, i, kind, member)
}

func (e *Engine) transactWriteItems(s *scope, in *transactWriteInput) (any, error) {
	token, err := checkTxnRequest(in)
	if err != nil {
		return nil, err
	}
	if token != "" {
		if ans, repeated, err := e.repeatedTxn(s, token, in); repeated {
			return ans, err
		}
	}
	// Phase 1: each action's shape, values and expressions.
	acts, err := checkTxnActions(in.TransactItems, in.actions)
	if err != nil {
		return nil, err
	}
	// Phases 2 and 3: the tables, then the keys.
	if err := bindTxnActions(s, acts); err != nil {
		return nil, err
	}
	// Phase 4: every action against the stored items.
	outs, err := prepareTxnActions(acts)
	if err != nil {
		return nil, err
	}
	caps, keys := applyTxnWrites(acts, outs)
	if token != "" {
		te := &tokenEntry{token: token, params: in.TransactItems, at: e.now(), keys: keys}
		s.tokens[token] = te
		s.aging = append(s.aging, te)
	}
	out := map[string]any{}
	if c := caps.render(in.ReturnConsumedCapacity, "WriteCapacityUnits", true); c != nil {
		out["ConsumedCapacity"] = c
	}
	return out, nil
}

// checkTxnRequest checks the request's token and the number of its
// actions, in DynamoDB's order, and returns the token ("" for none).
func checkTxnRequest(in *transactWriteInput) (string, error) {
	token := ""
	if in.ClientRequestToken != nil {
		token = *in.ClientRequestToken
		if len(token) > maxTokenLen {
			return "", validation(msgConstraintClientRequestTokenHaveLengthLess, token, maxTokenLen)
		}
	}
	switch {
	case in.TransactItems == nil:
		return "", validation(msgConstraintTransactItemsNotNull)
	case len(in.TransactItems) == 0:
		return "", validation(msgConstraintTransactItemsHaveLengthGreater)
	case len(in.TransactItems) > maxTxnActions:
		return "", validation(msgMemberLengthAtMost, maxTxnActions)
	}
	return token, nil
}

// repeatedTxn answers a request whose token a live earlier request used
// (repeated true): with that request's answer, or with an error when the
// parameters differ.
func (e *Engine) repeatedTxn(s *scope, token string, in *transactWriteInput) (ans any, repeated bool, err error) {
	e.forgetTokens(s)
	if te := s.tokens[token]; te != nil && e.now().Sub(te.at) < tokenLife {
		if canonicalParams(te.params) != canonicalParams(in.TransactItems) {
			return nil, true, newError(http.StatusBadRequest, nsDynamo+"IdempotentParameterMismatchException", "")
		}
		return e.repeatAnswer(s, te, in.ReturnConsumedCapacity), true, nil
	}
	return nil, false, nil
}

// checkTxnActions decodes (unless read holds them decoded) and checks each
// action in order, then the request's total payload.
func checkTxnActions(items []json.RawMessage, read []transactWriteItem) ([]*txnWrite, error) {
	acts := make([]*txnWrite, len(items))
	payload := 0
	for i, raw := range items {
		var ti transactWriteItem
		if read != nil {
			ti = read[i]
		} else if err := decode(raw, &ti); err != nil {
			return nil, err
		}
		a, size, err := checkTxnAction(i+1, &ti)
		if err != nil {
			return nil, err
		}
		acts[i] = a
		payload += size
	}
	if payload > maxTxnPayload {
		return nil, validation(msgTransactionPayloadSizeCannotExceed, payload)
	}
	return acts, nil
}

// bindTxnActions looks up every action's table and checks its key's scalar
// types (phase 2), and only then resolves the keys, one action per item
// (phase 3).
func bindTxnActions(s *scope, acts []*txnWrite) error {
	for _, a := range acts {
		t, err := s.lookup(*a.in.TableName)
		if err != nil {
			return err
		}
		a.w.t = t
		if err := a.scalarKeys(); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, a := range acts {
		if err := a.resolveKey(); err != nil {
			return err
		}
		k := itemID(a.w.t, a.w.hash, a.w.rng)
		if seen[k] {
			return validation(msgTransactionRequestCannotIncludeMultiple)
		}
		seen[k] = true
	}
	return nil
}

// txnOutcome is what one action found and leaves: the stored entry and the
// item to store (nil for none).
type txnOutcome struct {
	old  *entry
	next map[string]types.AttributeValue
}

// prepareTxnActions evaluates every action against the stored items
// without writing; any failure cancels the whole transaction, with one
// reason per action.
func prepareTxnActions(acts []*txnWrite) ([]txnOutcome, error) {
	reasons := make([]reason, len(acts))
	outs := make([]txnOutcome, len(acts))
	failed := false
	for i, a := range acts {
		reasons[i].Code = "None"
		if a.reason != nil {
			reasons[i] = validationReason(a.reason)
			failed = true
			continue
		}
		old, next, err := a.w.prepare()
		if err != nil {
			r, ok := a.failure(err)
			if !ok {
				return nil, err
			}
			reasons[i] = r
			failed = true
			continue
		}
		outs[i] = txnOutcome{old, next}
	}
	if failed {
		return nil, canceled(reasons)
	}
	return outs, nil
}

// applyTxnWrites stores every action's outcome, returning the capacity
// consumed and the items touched (for the token's later answers).
func applyTxnWrites(acts []*txnWrite, outs []txnOutcome) (*capacities, []txnKey) {
	caps := &capacities{}
	keys := make([]txnKey, len(acts))
	for i, a := range acts {
		a.w.apply(outs[i].next)
		keys[i] = txnKey{table: a.w.t.name, hash: a.w.hash, rng: a.w.rng}
		oldItem, size := (map[string]types.AttributeValue)(nil), 0
		if o := outs[i].old; o != nil {
			oldItem, size = o.item(), o.size()
		}
		var ix map[*index]float64
		if a.kind != "conditionCheck" {
			if outs[i].next != nil {
				size = max(size, attrs.ItemSize(outs[i].next))
			}
			ix = a.w.t.indexWrites(oldItem, outs[i].next)
		}
		// A transactional write costs twice a plain one.
		caps.add(a.w.t, 2*writeUnits(size), ix, 2)
	}
	return caps, keys
}

// checkTxnAction runs phase 1 on the action numbered i (from 1): it returns
// the action with its write, and the size the action adds to the
// transaction's payload.
func checkTxnAction(i int, ti *transactWriteItem) (*txnWrite, int, error) {
	a, err := txnActionOf(ti)
	if err != nil {
		return nil, 0, err
	}
	if err := checkTxnMembers(i, a); err != nil {
		return nil, 0, err
	}
	in := a.in
	x, err := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if err != nil {
		return nil, 0, err
	}
	a.w = &write{x: x, onFail: in.ReturnValuesOnConditionCheckFailure}
	size, err := txnItemSize(a)
	if err != nil {
		return nil, 0, err
	}
	more, err := checkTxnExprs(a, x)
	if err != nil {
		return nil, 0, err
	}
	return a, size + more, nil
}

// txnActionOf finds the one action of ti: none or more than one is refused.
func txnActionOf(ti *transactWriteItem) (*txnWrite, error) {
	a := &txnWrite{}
	n := 0
	for _, c := range []struct {
		kind string
		in   *txnAction
	}{{"conditionCheck", ti.ConditionCheck}, {"put", ti.Put}, {"delete", ti.Delete}, {"update", ti.Update}} {
		if c.in != nil {
			a.kind, a.in = c.kind, c.in
			n++
		}
	}
	switch {
	case n == 0:
		return nil, validation(msgRequestTransactWriteRequestShouldContainDelete)
	case n > 1:
		return nil, validation(msgTransactItemsCanOnlyContainCheck)
	}
	return a, nil
}

// checkTxnMembers checks the action's required members, its table name and
// its ReturnValuesOnConditionCheckFailure; i counts from 1.
func checkTxnMembers(i int, a *txnWrite) error {
	in := a.in
	if in.TableName == nil {
		return notNull(i, a.kind, "tableName")
	}
	switch {
	case a.kind == "put" && in.Item == nil:
		return notNull(i, a.kind, "item")
	case a.kind != "put" && in.Key == nil:
		return notNull(i, a.kind, "key")
	case a.kind == "conditionCheck" && in.ConditionExpression == nil:
		return notNull(i, a.kind, "conditionExpression")
	case a.kind == "update" && in.UpdateExpression == nil && in.ExpressionAttributeValues != nil:
		// Without values, an Update without UpdateExpression is accepted.
		return notNull(i, a.kind, "updateExpression")
	}
	if err := checkName(*in.TableName); err != nil {
		return err
	}
	switch in.ReturnValuesOnConditionCheckFailure {
	case "", "NONE", "ALL_OLD":
	default:
		return validation(msgConstraintReturnValuesOnConditionCheckFailureSatisfyEnumSet, in.ReturnValuesOnConditionCheckFailure)
	}
	return nil
}

// txnItemSize checks a put's item (keeping it in a.w.put) or decodes the
// key of another action, and returns its size toward the payload.
func txnItemSize(a *txnWrite) (int, error) {
	in, w := a.in, a.w
	if a.kind != "put" {
		m, err := in.Key.attrs()
		if err != nil {
			return 0, err
		}
		return attrs.ItemSize(m), nil
	}
	m, err := in.Item.attrs()
	if err != nil {
		return 0, err
	}
	if err := checkNesting(m); err != nil {
		return 0, err
	}
	if w.put, err = checkItem(m); err != nil {
		return 0, err
	}
	size := attrs.ItemSize(w.put)
	if size > maxItemSize {
		return 0, validation(msgItemSizeHasExceededMaximum)
	}
	return size, nil
}

// checkTxnExprs sets the action's kind on a.w and checks its update and
// condition expressions and their names and values; it returns what the
// update adds to the payload.
func checkTxnExprs(a *txnWrite, x *exprs) (size int, err error) {
	in, w := a.in, a.w
	switch a.kind {
	case "delete":
		w.delete = true
	case "conditionCheck":
		w.check = true
	case "update":
		if w.update, err = x.updateExpr(in.UpdateExpression); err != nil {
			return 0, err
		}
		if in.UpdateExpression != nil {
			size += len(*in.UpdateExpression)
		}
		for _, v := range x.values {
			size += attrs.Size(v)
		}
	}
	if w.cond, err = x.condition("ConditionExpression", in.ConditionExpression); err != nil {
		return 0, err
	}
	if err := x.done(); err != nil {
		var api *apiError
		if errors.As(err, &api) && api.msg == msgValuesWithoutExpression && (a.kind == "put" || a.kind == "delete") {
			api.msg += ": ConditionExpression is null"
		}
		return 0, err
	}
	if err := staticUpdateCheck(w); err != nil {
		return 0, err
	}
	return size, nil
}

// staticUpdateCheck returns the errors of an Update's expression that
// DynamoDB finds in the request alone (undefined placeholders, paths that
// overlap, operands of the wrong type), which Local reports before it looks
// at the tables. Apply checks those first, so applying the update to an
// empty item, without key names, reports them; the errors that the empty
// item itself causes are evaluation errors, which have no "Invalid
// UpdateExpression" prefix, and wait for phase 4 and the real item.
func staticUpdateCheck(w *write) error {
	if w.update == nil {
		return nil
	}
	_, err := w.update.Apply(map[string]types.AttributeValue{}, w.x.names, w.x.values, nil)
	var ce *cond.Error
	if errors.As(err, &ce) && strings.HasPrefix(ce.Msg, "Invalid UpdateExpression: ") {
		return validation("%s", ce.Msg)
	}
	return nil
}

// resolveKey runs phase 3 on an action: it finds its key. A key attribute
// of the other scalar type, or a Put's index key of the wrong type, is kept
// in a.reason for phase 4, where DynamoDB reports it as the action's
// ValidationError.
func (a *txnWrite) resolveKey() error {
	w, t := a.w, a.w.t
	var m map[string]types.AttributeValue
	if a.kind == "put" {
		m = w.put
	} else {
		var err error
		if m, err = a.in.Key.attrs(); err != nil {
			return err
		}
		want := 1
		if t.rng.name != "" {
			want = 2
		}
		if len(m) != want {
			return validation(msgNumberConditionsOnKeys)
		}
	}
	hash, rng, mismatch, err := t.txnKeyValues(m)
	if err != nil {
		return err
	}
	w.hash, w.rng, a.reason = hash, rng, mismatch
	if a.kind == "put" && a.reason == nil {
		if err := t.checkIndexKeys(w.put); err != nil {
			if !isReasonError(err) {
				return err
			}
			a.reason = err
		}
	}
	return nil
}

// txnKeyValues reads a table's key from m as keyValue does, except that a
// key attribute of another scalar type is returned as mismatch (with the
// value as given), not as an error.
func (t *table) txnKeyValues(m map[string]types.AttributeValue) (hash, rng types.AttributeValue, mismatch, err error) {
	one := func(k keyDef) (types.AttributeValue, error) {
		v, ok := m[k.name]
		if ok && typeName(v) != k.typ {
			switch typeName(v) {
			case "S", "N", "B":
				if mismatch == nil {
					mismatch = invalidParam(msgTypeMismatchKey)
				}
				return v, nil
			}
		}
		return t.keyValue(k, m, false)
	}
	if hash, err = one(t.hash); err != nil {
		return nil, nil, nil, err
	}
	if t.rng.name != "" {
		if rng, err = one(t.rng); err != nil {
			return nil, nil, nil, err
		}
	}
	return hash, rng, mismatch, nil
}

// itemID identifies an item of a table, for finding two actions on one.
func itemID(t *table, hash, rng types.AttributeValue) string {
	id := t.name + "\x00" + encodeKey(hash)
	if rng != nil {
		id += "\x00" + encodeKey(rng)
	}
	return id
}

// isReasonError reports whether an error of an action is one DynamoDB
// reports as the action's cancellation reason ValidationError rather than
// as a ValidationException for the whole request.
func isReasonError(err error) bool {
	var api *apiError
	if !errors.As(err, &api) || api.code() != "ValidationException" {
		return false
	}
	m := api.msg
	return m == "One or more parameter values were invalid: Type mismatch for key" ||
		m == "One or more parameter values were invalid: Type mismatch for Index Key" ||
		m == "Item size to update has exceeded the maximum allowed size" ||
		strings.Contains(m, "This attribute is part of the key")
}

func validationReason(err error) reason {
	var api *apiError
	errors.As(err, &api)
	return reason{Code: "ValidationError", Message: api.msg}
}

// failure turns an error of phase 4 into the action's cancellation reason;
// ok is false for an error that fails the whole request.
func (a *txnWrite) failure(err error) (r reason, ok bool) {
	var api *apiError
	if !errors.As(err, &api) {
		return reason{}, false
	}
	if api.code() == "ConditionalCheckFailedException" {
		msg := api.msg
		if a.kind == "conditionCheck" {
			// DynamoDB Local ends this one sentence with a period.
			msg += "."
		}
		return reason{Code: "ConditionalCheckFailed", Message: msg, Item: api.item}, true
	}
	if isReasonError(err) {
		return validationReason(err), true
	}
	return reason{}, false
}
