package engine

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/cond"
)

// Limits DynamoDB enforces on items, tables and requests, checked where
// DynamoDB Local checks them so that a request with several faults gets
// its message.

// maxNesting is how many lists and maps may nest inside one attribute:
// DynamoDB documents 32 levels of nesting, the item itself counting as the
// first, and DynamoDB Local refuses a value with one more list or map.
const maxNesting = 31

// depth is how many lists and maps nest in v, v included; an empty list
// or map counts as a level.
func depth(v types.AttributeValue) int {
	d := 0
	switch v := v.(type) {
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			d = max(d, depth(e))
		}
		return d + 1
	case *types.AttributeValueMemberM:
		for _, e := range v.Value {
			d = max(d, depth(e))
		}
		return d + 1
	}
	return 0
}

// tooDeep reports whether an attribute of m nests more than DynamoDB
// allows.
func tooDeep(m map[string]types.AttributeValue) bool {
	for _, v := range m {
		if depth(v) > maxNesting {
			return true
		}
	}
	return false
}

// checkNesting refuses an item to be stored whole (PutItem, a batch's or a
// transaction's Put) that nests too deep; DynamoDB Local checks it before
// the item's values and key.
func checkNesting(m map[string]types.AttributeValue) error {
	if tooDeep(m) {
		return validation(msgNestingTooDeep + ": Attributes in the item have nested levels beyond supported limit")
	}
	return nil
}

// checkUpdatedNesting refuses the result of an update that nests too deep.
func checkUpdatedNesting(m map[string]types.AttributeValue) error {
	if tooDeep(m) {
		return validation(msgNestingTooDeep)
	}
	return nil
}

const (
	// maxGSIs is DynamoDB's default quota of global secondary indexes per
	// table.
	maxGSIs = 20
	// maxProjected is how many NonKeyAttributes a table's indexes may
	// project in all, an attribute projected by two indexes counting twice.
	maxProjected = 100
	// maxUnits is DynamoDB's default quota of read or write capacity units
	// of a table or a global secondary index.
	maxUnits = 40000
)

// limitExceeded is LimitExceededException.
func limitExceeded(format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, nsDynamo+"LimitExceededException", format, args...)
}

// checkAttrName refuses the name of a key attribute, of an attribute an
// index projects or of a TTL attribute that is empty or longer than 255
// characters.
func checkAttrName(name string) error {
	if n := utf8.RuneCountInString(name); n < 1 || n > 255 {
		return validation(msgNamesKeyAttributesAttributesProjected)
	}
	return nil
}

// indexLimits carries what the checks of a table's indexes add up: how many
// attributes they project so far, and whether the table is provisioned
// (each GSI then needs its own throughput).
type indexLimits struct {
	projected   int
	provisioned bool
}

// project counts an index's NonKeyAttributes against the table's limit.
// DynamoDB Local words the refusal as for LSIs alone, with an old limit,
// whichever indexes project them.
func (l *indexLimits) project(nonKey []string) error {
	l.projected += len(nonKey)
	if l.projected > maxProjected {
		return validation(msgTooManyLSIProjected)
	}
	return nil
}

// gsiThroughput checks a GSI's throughput in a provisioned CreateTable.
func (l *indexLimits) gsiThroughput(p *throughput) error {
	if !l.provisioned {
		return nil
	}
	if p == nil {
		return validation(msgNoProvisionedThroughputSpecifiedGlobal)
	}
	return checkUnits(p, "Global Secondary Index's", "global secondary index")
}

// checkUnits checks throughput given for a table (whose "Table", "table")
// or an index ("Global Secondary Index's", "global secondary index").
func checkUnits(p *throughput, whose, per string) error {
	if !positive(p) {
		return validation(msgReadWriteThroughputAtLeast, whose)
	}
	if *p.ReadCapacityUnits > maxUnits || *p.WriteCapacityUnits > maxUnits {
		return validation(msgCannotIncreaseProvisionedThroughputThan, per)
	}
	return nil
}

// checkGSIUpdates checks UpdateTable's GlobalSecondaryIndexUpdates before
// anything else of the request, in DynamoDB Local's order: one update per
// index, then one index created or deleted. (An entry without an action is
// refused later, in its turn.)
func checkGSIUpdates(ups []gsiUpdate) error {
	seen := map[string]bool{}
	online := 0
	for _, u := range ups {
		var name string
		switch {
		case u.Create != nil:
			name = u.Create.IndexName
			online++
		case u.Delete != nil:
			name = u.Delete.IndexName
			online++
		case u.Update != nil:
			name = u.Update.IndexName
		default:
			continue
		}
		if seen[name] {
			return validation(msgOnlyGlobalSecondaryIndexUpdate)
		}
		seen[name] = true
	}
	if online > 1 {
		return limitExceeded(msgSubscriberLimitExceededOnly1)
	}
	return nil
}

// indexLimits is what t's indexes add up to, for an index UpdateTable
// creates.
func (t *table) indexLimits() *indexLimits {
	l := &indexLimits{}
	for _, ix := range append(append([]*index(nil), t.lsis...), t.gsis...) {
		l.projected += len(ix.nonKey)
	}
	return l
}

// scalarKeys refuses an expression (a projection or a condition) that
// goes into one of t's key attributes (pk.x, pk[0]): DynamoDB refuses it
// wherever an expression names an attribute, since a key is a scalar.
func (t *table) scalarKeys(names map[string]string, exprs ...*string) error {
	for _, s := range exprs {
		if s == nil {
			continue
		}
		for _, n := range exprRefs(*s).deep {
			if strings.HasPrefix(n, "#") {
				n = names[n]
			}
			if n == t.hash.name || (t.rng.name != "" && n == t.rng.name) {
				return validation(msgKeyNotScalarPath, n)
			}
		}
	}
	return nil
}

// checkBatchGetShape checks what of a BatchGetItem needs no table, before
// any table is looked up, as DynamoDB Local does: for each table, names
// without a projection, an empty list of keys, then each key's values and
// duplicates among them (by their text).
func checkBatchGetShape(in *batchGetInput) error {
	for _, name := range sortedKeys(in.RequestItems) {
		ka := in.RequestItems[name]
		if ka != nil && ka.ExpressionAttributeNames != nil && ka.ProjectionExpression == nil {
			return validation(msgExpressionAttributeNamesCanOnlySpecifiedWhen)
		}
		if ka == nil || len(ka.Keys) == 0 {
			return validation(msgListKeysRequestItemsBatchGetItemRequired, name)
		}
		seen := map[string]bool{}
		for _, k := range ka.Keys {
			m, err := k.attrs()
			if err != nil {
				return err
			}
			for _, n := range sortedKeys(m) {
				if _, err := checkValue(m[n]); err != nil {
					return err
				}
			}
			id := rawKey(k)
			if seen[id] {
				return validation(msgListItemKeysContainsDuplicates)
			}
			seen[id] = true
		}
	}
	return nil
}

// scalarKeyOperands refuses an update whose SET reads a nested path into
// one of t's key attributes (SET z = pk.x).
func (t *table) scalarKeyOperands(u *cond.Update, names map[string]string) error {
	paths, err := u.Operands(names)
	if err != nil {
		return exprError("UpdateExpression", err)
	}
	for _, p := range paths {
		if len(p) > 1 && (p[0].Name == t.hash.name || (t.rng.name != "" && p[0].Name == t.rng.name)) {
			return validation(msgKeyNotScalarPath, p[0].Name)
		}
	}
	return nil
}

// scalarKeys refuses a transaction's Put, Delete or Update whose condition
// goes into a key attribute, or an Update whose SET reads one. DynamoDB
// Local lets a ConditionCheck's condition through (it is false).
func (a *txnWrite) scalarKeys() error {
	if a.kind == "conditionCheck" {
		return nil
	}
	if err := a.w.t.scalarKeys(a.w.x.names, a.in.ConditionExpression); err != nil {
		return err
	}
	if a.w.update != nil {
		return a.w.t.scalarKeyOperands(a.w.update, a.w.x.names)
	}
	return nil
}

// exprsWithout refuses ExpressionAttributeNames or ExpressionAttributeValues
// given to PutItem, DeleteItem or UpdateItem without an expression, which
// DynamoDB Local checks before the item or the key; nullParams names the
// expressions missing. A request with legacy parameters is left to their
// checks.
func (in *writeInput) exprsWithout(nullParams string) error {
	if in.Expected != nil || in.AttributeUpdates != nil || in.ConditionalOperator != "" ||
		in.ConditionExpression != nil || in.UpdateExpression != nil {
		return nil
	}
	if in.ExpressionAttributeNames != nil {
		return validation(msgExpressionAttributeNamesCanOnlySpecifiedWhen)
	}
	if in.ExpressionAttributeValues != nil {
		return validation("%s: %s", msgValuesWithoutExpression, nullParams)
	}
	return nil
}

// unchangedUnits refuses throughput equal to what a provisioned table or
// index has, as DynamoDB does.
func unchangedUnits(billing string, p *throughput, rcu, wcu int64) error {
	if billing == "PROVISIONED" && *p.ReadCapacityUnits == rcu && *p.WriteCapacityUnits == wcu {
		return validation(msgRequestedThroughputEqualsCurrent)
	}
	return nil
}

// keyNames checks the attribute names of the key schema of an index that
// UpdateTable creates (CreateTable checks them among its
// AttributeDefinitions).
func keyNames(ks []keySchemaElement) error {
	for _, k := range ks {
		if err := checkAttrName(k.AttributeName); err != nil {
			return err
		}
	}
	return nil
}
