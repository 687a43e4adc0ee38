//go:build conformance

package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Transaction items on table "h" (logical names resolved by tx).
type txItem func(n namer) types.TransactWriteItem

func txPut(x item, cond string, vals item, rvf types.ReturnValuesOnConditionCheckFailure) txItem {
	return func(n namer) types.TransactWriteItem {
		p := &types.Put{TableName: str(n.T("h")), Item: x, ReturnValuesOnConditionCheckFailure: rvf}
		if cond != "" {
			p.ConditionExpression = str(cond)
		}
		if len(vals) > 0 {
			p.ExpressionAttributeValues = vals
		}
		return types.TransactWriteItem{Put: p}
	}
}

func txUpd(key, expr, cond string, vals item, rvf types.ReturnValuesOnConditionCheckFailure) txItem {
	return func(n namer) types.TransactWriteItem {
		u := &types.Update{TableName: str(n.T("h")), Key: it("pk", S(key)), UpdateExpression: str(expr), ReturnValuesOnConditionCheckFailure: rvf}
		if cond != "" {
			u.ConditionExpression = str(cond)
		}
		if len(vals) > 0 {
			u.ExpressionAttributeValues = vals
		}
		return types.TransactWriteItem{Update: u}
	}
}

func txDel(key, cond string, vals item, rvf types.ReturnValuesOnConditionCheckFailure) txItem {
	return func(n namer) types.TransactWriteItem {
		d := &types.Delete{TableName: str(n.T("h")), Key: it("pk", S(key)), ReturnValuesOnConditionCheckFailure: rvf}
		if cond != "" {
			d.ConditionExpression = str(cond)
		}
		if len(vals) > 0 {
			d.ExpressionAttributeValues = vals
		}
		return types.TransactWriteItem{Delete: d}
	}
}

func txCheck(key, cond string, vals item, rvf types.ReturnValuesOnConditionCheckFailure) txItem {
	return func(n namer) types.TransactWriteItem {
		c := &types.ConditionCheck{TableName: str(n.T("h")), Key: it("pk", S(key)), ConditionExpression: str(cond), ReturnValuesOnConditionCheckFailure: rvf}
		if len(vals) > 0 {
			c.ExpressionAttributeValues = vals
		}
		return types.TransactWriteItem{ConditionCheck: c}
	}
}

func tx(token string, items ...txItem) func(n namer) any {
	return func(n namer) any {
		in := &dynamodb.TransactWriteItemsInput{}
		for _, x := range items {
			in.TransactItems = append(in.TransactItems, x(n))
		}
		if token != "" {
			in.ClientRequestToken = str(n.Tok(token))
		}
		return in
	}
}

func tget(keys ...string) func(n namer) any {
	return func(n namer) any {
		in := &dynamodb.TransactGetItemsInput{}
		for _, k := range keys {
			in.TransactItems = append(in.TransactItems, types.TransactGetItem{Get: &types.Get{TableName: str(n.T("h")), Key: it("pk", S(k))}})
		}
		return in
	}
}

// txnCases: TransactWriteItems and TransactGetItems.
func txnCases() []tcase {
	allOld := types.ReturnValuesOnConditionCheckFailureAllOld
	hcase := func(name string, steps ...step) tcase { return tc(name, with(fixH(), steps...)...) }
	var cs []tcase
	cs = append(cs,
		hcase("txw/all-kinds", ok(tx("",
			txPut(it("pk", S("new"), "v", N("1")), "attribute_not_exists(pk)", nil, ""),
			txUpd("a", "SET n = n + :one", "n = :one", it(":one", N("1")), ""),
			txDel("b", "", nil, ""),
			txCheck("c", "attribute_exists(pk)", nil, ""),
		)), scanAll("h")),
		hcase("txw/capacity", ok(func(n namer) any {
			in := tx("", txPut(it("pk", S("new")), "", nil, ""), txCheck("c", "attribute_exists(pk)", nil, ""), txDel("b", "", nil, ""))(n).(*dynamodb.TransactWriteItemsInput)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			return in
		}), ok(func(n namer) any {
			in := tx("", txUpd("a", "SET v = :v", "", it(":v", S(strings.Repeat("v", 5000))), ""))(n).(*dynamodb.TransactWriteItemsInput)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
			return in
		})),
		hcase("txw/cancel-reasons", st(txCanc, tx("",
			txPut(it("pk", S("new")), "", nil, ""),
			txCheck("a", "n = :v", it(":v", N("5")), allOld),
			txUpd("b", "SET z = :v", "attribute_not_exists(pk)", it(":v", S("z")), ""),
			txDel("missing", "attribute_exists(pk)", nil, allOld),
			txUpd("c", "SET z = :v", "n < :v", it(":v", N("0")), allOld),
		)), scanAll("h")),
		hcase("txw/cancel-update-type-error", st("*", tx("",
			txPut(it("pk", S("new")), "", nil, ""),
			txUpd("a", "SET s = s + :v", "", it(":v", N("1")), ""),
		)), scanAll("h")),
		hcase("txw/cancel-condition-and-validation", st("*", tx("",
			txCheck("a", "n = :v", it(":v", N("5")), allOld),
			txUpd("b", "ADD s :v", "", it(":v", N("1")), ""),
		))),
		hcase("txw/same-item-twice", st(vErr, tx("",
			txPut(it("pk", S("a")), "", nil, ""),
			txCheck("a", "attribute_exists(pk)", nil, ""),
		))),
		hcase("txw/empty", st(vErr, tx(""))),
		hcase("txw/101", st(vErr, func(n namer) any {
			var items []txItem
			for i := range 101 {
				items = append(items, txPut(it("pk", S(fmt.Sprint(i))), "", nil, ""))
			}
			return tx("", items...)(n)
		})),
		hcase("txw/100", ok(func(n namer) any {
			var items []txItem
			for i := range 100 {
				items = append(items, txPut(it("pk", S(fmt.Sprint(i))), "", nil, ""))
			}
			return tx("", items...)(n)
		})),
		hcase("txw/over-4mb", st(vErr, func(n namer) any {
			var items []txItem
			for i := range 11 {
				items = append(items, txPut(it("pk", S(fmt.Sprint(i)), "pad", S(strings.Repeat("p", 390_000))), "", nil, ""))
			}
			return tx("", items...)(n)
		})),
		hcase("txw/under-4mb", ok(func(n namer) any {
			var items []txItem
			for i := range 10 {
				items = append(items, txPut(it("pk", S(fmt.Sprint(i)), "pad", S(strings.Repeat("p", 390_000))), "", nil, ""))
			}
			return tx("", items...)(n)
		})),
		hcase("txw/two-kinds-in-one", st(vErr, func(n namer) any {
			in := tx("", txPut(it("pk", S("x")), "", nil, ""))(n).(*dynamodb.TransactWriteItemsInput)
			in.TransactItems[0].Delete = &types.Delete{TableName: str(n.T("h")), Key: it("pk", S("y"))}
			return in
		})),
		hcase("txw/no-kind", st(vErr, func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{}}}
		})),
		hcase("txw/check-without-condition", st(vErr, tx("", txCheck("a", "", nil, "")))),
		hcase("txw/missing-table", st(rnf, func(n namer) any {
			in := tx("", txPut(it("pk", S("x")), "", nil, ""))(n).(*dynamodb.TransactWriteItemsInput)
			in.TransactItems[0].Put.TableName = str(n.T("nope"))
			return in
		})),
		hcase("txw/bad-key", st(txCanc, tx("", txUpd("a", "SET z = :v", "", it(":v", S("z")), ""), txPut(it("pk", N("1")), "", nil, "")))),
		hcase("txw/unused-value", st(vErr, tx("", txPut(it("pk", S("x")), "attribute_not_exists(pk)", it(":v", S("z")), "")))),
		hcase("txw/token-same-request", ok(tx("tok1", txUpd("a", "ADD n :one", "", it(":one", N("1")), ""))),
			ok(tx("tok1", txUpd("a", "ADD n :one", "", it(":one", N("1")), ""))), getKey("h", it("pk", S("a")))),
		hcase("txw/token-other-request", ok(tx("tok2", txUpd("a", "ADD n :one", "", it(":one", N("1")), ""))),
			st(ipm, tx("tok2", txUpd("a", "ADD n :one", "", it(":one", N("2")), ""))), getKey("h", it("pk", S("a")))),
		hcase("txw/token-after-failure", st(txCanc, tx("tok3", txUpd("a", "ADD n :one", "n = :one", it(":one", N("2")), ""))),
			ok(tx("tok3", txUpd("a", "ADD n :one", "n = :one", it(":one", N("1")), ""))), getKey("h", it("pk", S("a")))),
		hcase("txw/token-capacity", ok(func(n namer) any {
			in := tx("tok4", txPut(it("pk", S("x")), "", nil, ""))(n).(*dynamodb.TransactWriteItemsInput)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			return in
		}), ok(func(n namer) any {
			in := tx("tok4", txPut(it("pk", S("x")), "", nil, ""))(n).(*dynamodb.TransactWriteItemsInput)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			return in
		})),
		hcase("txw/token-too-long", st(vErr, func(n namer) any {
			in := tx("", txPut(it("pk", S("x")), "", nil, ""))(n).(*dynamodb.TransactWriteItemsInput)
			in.ClientRequestToken = str(strings.Repeat("t", 37))
			return in
		})),

		hcase("txg/basic", ok(tget("a", "b", "missing"))),
		hcase("txg/capacity", ok(func(n namer) any {
			in := tget("a", "missing")(n).(*dynamodb.TransactGetItemsInput)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			return in
		})),
		hcase("txg/projection", ok(func(n namer) any {
			in := tget("a", "b")(n).(*dynamodb.TransactGetItemsInput)
			in.TransactItems[0].Get.ProjectionExpression = str("#n, l[0]")
			in.TransactItems[0].Get.ExpressionAttributeNames = names("#n", "n")
			return in
		})),
		hcase("txg/same-item-twice", st(vErr, tget("a", "a"))),
		hcase("txg/101", st(vErr, func(n namer) any {
			keys := make([]string, 101)
			for i := range keys {
				keys[i] = fmt.Sprint(i)
			}
			return tget(keys...)(n)
		})),
		hcase("txg/100", ok(func(n namer) any {
			keys := make([]string, 100)
			for i := range keys {
				keys[i] = fmt.Sprint(i)
			}
			keys[0] = "a"
			return tget(keys...)(n)
		})),
		hcase("txg/empty", st(vErr, tget())),
		hcase("txg/missing-table", st(rnf, func(n namer) any {
			in := tget("a")(n).(*dynamodb.TransactGetItemsInput)
			in.TransactItems[0].Get.TableName = str(n.T("nope"))
			return in
		})),
		hcase("txg/bad-key", st(txCanc, func(n namer) any {
			in := tget("a")(n).(*dynamodb.TransactGetItemsInput)
			in.TransactItems[0].Get.Key = it("pk", S("a"), "x", S("y"))
			return in
		})),
		tc("txg/range-table", with(fixR(), ok(func(n namer) any {
			return &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("1"))}},
				{Get: &types.Get{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("2")), ProjectionExpression: str("a")}},
			}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		}))...),
		tc("txw/range-table-indexes", with(fixR(), ok(func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: str(n.T("r")), Item: it("pk", S("p1"), "sk", N("9"), "g", S("g0"))}},
				{Update: &types.Update{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("2")), UpdateExpression: str("REMOVE g")}},
			}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}
		}), ok(func(n namer) any { return qIn(n, "gAll", "g = :g", it(":g", S("g0"))) }),
			ok(func(n namer) any { return qIn(n, "gKeys", "g = :g", it(":g", S("g2"))) }))...),
		hcase("txw/update-creates", ok(tx("", txUpd("new", "SET v = :v", "", it(":v", N("1")), ""))), getKey("h", it("pk", S("new")))),
		hcase("txw/check-missing-item", st(txCanc, tx("", txCheck("missing", "attribute_exists(pk)", nil, allOld), txPut(it("pk", S("x")), "", nil, "")))),
		hcase("txw/put-rvf-all-old-ok", ok(tx("", txPut(it("pk", S("a")), "attribute_exists(pk)", nil, allOld)))),
		hcase("txw/cancel-order", st(txCanc, tx("",
			txPut(it("pk", S("x1")), "", nil, ""),
			txPut(it("pk", S("x2")), "", nil, ""),
			txCheck("b", "attribute_not_exists(pk)", nil, allOld),
			txPut(it("pk", S("x3")), "", nil, ""),
		))),
	)
	_ = aws.String
	return cs
}
