//go:build conformance

package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// putPC is a PutItem on ProductCatalog.
func putPC(want string, x item, mods ...func(*dynamodb.PutItemInput)) step {
	return st(want, func(n namer) any {
		in := &dynamodb.PutItemInput{TableName: str(n.T(docCatalog)), Item: x}
		for _, m := range mods {
			m(in)
		}
		return in
	})
}

func rv(v types.ReturnValue) func(*dynamodb.PutItemInput) {
	return func(in *dynamodb.PutItemInput) { in.ReturnValues = v }
}

func rcc(in *dynamodb.PutItemInput) { in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal }

// docItemCases: API_PutItem, API_GetItem, API_DeleteItem, the data types
// and the item and key limits.
func docItemCases() []tcase {
	getKeyed := func(want string, key item) step {
		return st(want, func(n namer) any { return &dynamodb.GetItemInput{TableName: str(n.T(docCatalog)), Key: key} })
	}
	r := func(name string, steps ...step) tcase { return tc("doc/"+name, with(docReplyFix(), steps...)...) }
	replyKey := func(want string, key item) step {
		return st(want, func(n namer) any { return &dynamodb.GetItemInput{TableName: str(n.T(docReply)), Key: key} })
	}
	num := func(name, want, v string) tcase {
		return docCase("DataTypes/"+name, putPC(want, it("Id", N("1"), "V", N(v))), getProj("", "1", ""))
	}
	return []tcase{
		// API_PutItem.
		docCase("API_PutItem/replaces-whole-item", putPC("", it("Id", N("123"), "Title", S("only")), rv(types.ReturnValueAllOld)), getProj("", "123", "")),
		docCase("API_PutItem/all-old-new-item", putPC("", it("Id", N("1")), rv(types.ReturnValueAllOld))),
		docCase("API_PutItem/all-new-refused", putPC(vErr, it("Id", N("1")), rv(types.ReturnValueAllNew))),
		docCase("API_PutItem/updated-old-refused", putPC(vErr, it("Id", N("1")), rv(types.ReturnValueUpdatedOld))),
		docCase("API_PutItem/key-missing", putPC(vErr, it("Title", S("x")))),
		docCase("API_PutItem/key-wrong-type", putPC(vErr, it("Id", S("1")))),
		r("API_PutItem/sort-key-missing", st(vErr, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T(docReply)), Item: it("Id", S("x"))}
		})),
		r("API_PutItem/empty-string-key", st(vErr, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T(docReply)), Item: it("Id", S(""), "ReplyDateTime", S("d"))}
		})),
		r("API_PutItem/empty-string-index-key", st(vErr, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T(docReply)), Item: it("Id", S("x"), "ReplyDateTime", S("d"), "PostedBy", S(""))}
		})),
		r("API_PutItem/index-key-wrong-type", st(vErr, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T(docReply)), Item: it("Id", S("x"), "ReplyDateTime", S("d"), "Votes", S("many"))}
		})),
		docCase("API_PutItem/table-missing", st(rnf, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("nope")), Item: it("Id", N("1"))}
		})),
		docCase("API_PutItem/capacity-1kb", putPC("", it("Id", N("1"), "D", S(strings.Repeat("d", 900))), rcc)),
		docCase("API_PutItem/capacity-1.5kb", putPC("", it("Id", N("1"), "D", S(strings.Repeat("d", 1500))), rcc)),
		docCase("API_PutItem/capacity-overwrite-larger-item", putPC("", it("Id", N("1"), "D", S(strings.Repeat("d", 3000)))),
			putPC("", it("Id", N("1")), rcc)),
		// API_GetItem.
		docCase("API_GetItem/missing-item", getKeyed("", it("Id", N("1000")))),
		docCase("API_GetItem/extra-key-attribute", getKeyed(vErr, it("Id", N("123"), "Title", S("Bicycle 123")))),
		docCase("API_GetItem/key-wrong-type", getKeyed(vErr, it("Id", S("123")))),
		docCase("API_GetItem/key-number-respelled", getKeyed("", it("Id", N("1.23E2")))),
		r("API_GetItem/sort-key-missing", replyKey(vErr, it("Id", S(docThread1)))),
		docCase("API_GetItem/table-missing", st(rnf, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("nope")), Key: it("Id", N("1"))}
		})),
		docCase("API_GetItem/capacity-eventual", st("", func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T(docCatalog)), Key: it("Id", N("123")), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		})),
		docCase("API_GetItem/capacity-consistent", st("", func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T(docCatalog)), Key: it("Id", N("123")), ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		})),
		// API_DeleteItem.
		docCase("API_DeleteItem/all-old", st("", func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T(docCatalog)), Key: it("Id", N("456")), ReturnValues: types.ReturnValueAllOld}
		}), getProj("", "456", "")),
		docCase("API_DeleteItem/missing-item-succeeds", st("", func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T(docCatalog)), Key: it("Id", N("1000")), ReturnValues: types.ReturnValueAllOld}
		})),
		docCase("API_DeleteItem/all-new-refused", st(vErr, func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T(docCatalog)), Key: it("Id", N("456")), ReturnValues: types.ReturnValueAllNew}
		})),
		docCase("API_DeleteItem/extra-key-attribute", st(vErr, func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T(docCatalog)), Key: it("Id", N("456"), "Title", S("Book 456"))}
		})),
		// Data types.
		num("number-38-digits", "", "12345678901234567890123456789012345678"),
		num("number-39-digits-refused", vErr, "123456789012345678901234567890123456789"),
		num("number-39-digits-trailing-zero", "", "1234567890123456789012345678901234567800"),
		num("number-smallest", "", "1E-130"),
		num("number-too-small-refused", vErr, "1E-131"),
		num("number-largest", "", "9.9999999999999999999999999999999999999E+125"),
		num("number-too-large-refused", vErr, "1E+126"),
		num("number-negative-largest", "", "-9.9999999999999999999999999999999999999E+125"),
		num("number-zeros-trimmed", "", "0100.500"),
		num("number-negative-zero", "", "-0"),
		num("number-not-a-number", vErr, "12a"),
		num("number-empty", vErr, ""),
		docCase("DataTypes/string-set-duplicates-refused", putPC(vErr, it("Id", N("1"), "V", SS("a", "a")))),
		docCase("DataTypes/number-set-duplicates-refused", putPC(vErr, it("Id", N("1"), "V", NS("1", "1.0")))),
		docCase("DataTypes/empty-set-refused", putPC(vErr, it("Id", N("1"), "V", NS()))),
		docCase("DataTypes/empty-string-attribute", putPC("", it("Id", N("1"), "V", S(""), "W", B(""))), getProj("", "1", "")),
		docCase("DataTypes/empty-list-and-map", putPC("", it("Id", N("1"), "V", L(), "W", M())), getProj("", "1", "")),
		docCase("DataTypes/null-false-refused", putPC(vErr, it("Id", N("1"), "V", &nullFalse))),
		docCase("DataTypes/sets-unordered", putPC("", it("Id", N("1"), "V", NS("3", "1", "2"))), getProj("", "1", "")),
		docCase("DataTypes/binary-key", st("", func(n namer) any {
			return &dynamodb.CreateTableInput{TableName: str(n.T("bin")), BillingMode: types.BillingModePayPerRequest,
				KeySchema:            []types.KeySchemaElement{{AttributeName: str("K"), KeyType: types.KeyTypeHash}},
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: str("K"), AttributeType: tB}}}
		}), st("", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("bin")), Item: it("K", B("\x00\xff"))}
		}), st("", func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("bin")), Key: it("K", B("\x00\xff"))}
		})),
		docCase("DataTypes/nesting-32-levels", putPC("", it("Id", N("1"), "V", nestM(31)))),
		docCase("DataTypes/nesting-33-levels-refused", putPC(vErr, it("Id", N("1"), "V", nestM(32)))),
		// Constraints: item and key sizes.
		docCase("Constraints/item-just-under-400kb", putPC("", it("Id", N("1"), "V", S(strings.Repeat("v", 400*1024-16))))),
		docCase("Constraints/item-over-400kb-refused", putPC(vErr, it("Id", N("1"), "V", S(strings.Repeat("v", 400*1024))))),
		docCase("Constraints/update-over-400kb-refused", putPC("", it("Id", N("1"), "V", S(strings.Repeat("v", 300*1024)))),
			updPC(vErr, "1", "SET W = :w", types.ReturnValueNone, ":w", S(strings.Repeat("w", 150*1024)))),
		r("Constraints/partition-key-2048", st("", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T(docReply)), Item: it("Id", S(strings.Repeat("k", 2048)), "ReplyDateTime", S("d"))}
		})),
		r("Constraints/partition-key-2049-refused", st(vErr, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T(docReply)), Item: it("Id", S(strings.Repeat("k", 2049)), "ReplyDateTime", S("d"))}
		})),
		r("Constraints/sort-key-1024", st("", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T(docReply)), Item: it("Id", S("x"), "ReplyDateTime", S(strings.Repeat("d", 1024)))}
		})),
		r("Constraints/sort-key-1025-refused", st(vErr, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T(docReply)), Item: it("Id", S("x"), "ReplyDateTime", S(strings.Repeat("d", 1025)))}
		})),
		docCase("Constraints/expression-4kb-refused", delIf(vErr, "123", "Price = :p"+strings.Repeat(" OR Price = :p", 300), ":p", N("1"))),
	}
}

// nestM is a value of depth levels of maps around a string.
func nestM(depth int) av {
	v := S("x")
	for range depth {
		v = M("m", v)
	}
	return v
}

// docBatchCases: API_BatchWriteItem and API_BatchGetItem.
func docBatchCases() []tcase {
	write := func(want string, reqs func(n namer) map[string][]types.WriteRequest) step {
		return st(want, func(n namer) any { return &dynamodb.BatchWriteItemInput{RequestItems: reqs(n)} })
	}
	puts := func(count int) func(n namer) map[string][]types.WriteRequest {
		return func(n namer) map[string][]types.WriteRequest {
			var w []types.WriteRequest
			for i := range count {
				w = append(w, types.WriteRequest{PutRequest: &types.PutRequest{Item: it("Id", N(fmt.Sprint(2000+i)))}})
			}
			return map[string][]types.WriteRequest{n.T(docCatalog): w}
		}
	}
	get := func(want string, keys ...item) step {
		return st(want, func(n namer) any {
			return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{n.T(docCatalog): {Keys: keys}}}
		})
	}
	manyKeys := func(count int) []item {
		var out []item
		for i := range count {
			out = append(out, it("Id", N(fmt.Sprint(i))))
		}
		return out
	}
	p := func(id string) types.WriteRequest {
		return types.WriteRequest{PutRequest: &types.PutRequest{Item: it("Id", N(id))}}
	}
	d := func(id string) types.WriteRequest {
		return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: it("Id", N(id))}}
	}
	on := func(reqs ...types.WriteRequest) func(n namer) map[string][]types.WriteRequest {
		return func(n namer) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{n.T(docCatalog): reqs}
		}
	}
	return []tcase{
		docCase("API_BatchWriteItem/25-requests", write("", puts(25)), scanAll(docCatalog)),
		docCase("API_BatchWriteItem/26-requests-refused", write(vErr, puts(26))),
		docCase("API_BatchWriteItem/put-and-delete", write("", on(p("1"), d("123"))), scanAll(docCatalog)),
		docCase("API_BatchWriteItem/duplicate-puts-refused", write(vErr, on(p("1"), p("1")))),
		docCase("API_BatchWriteItem/put-delete-same-key-refused", write(vErr, on(p("123"), d("123")))),
		docCase("API_BatchWriteItem/both-in-one-request-refused", write(vErr, on(types.WriteRequest{
			PutRequest: &types.PutRequest{Item: it("Id", N("1"))}, DeleteRequest: &types.DeleteRequest{Key: it("Id", N("2"))}}))),
		docCase("API_BatchWriteItem/empty-request-refused", write(vErr, func(n namer) map[string][]types.WriteRequest { return nil })),
		docCase("API_BatchWriteItem/table-missing", write(rnf, func(n namer) map[string][]types.WriteRequest {
			return map[string][]types.WriteRequest{n.T("nope"): {p("1")}}
		})),
		docCase("API_BatchWriteItem/key-wrong-type", write(vErr, on(types.WriteRequest{PutRequest: &types.PutRequest{Item: it("Id", S("1"))}}))),
		docCase("API_BatchWriteItem/item-too-large", write(vErr, on(types.WriteRequest{PutRequest: &types.PutRequest{
			Item: it("Id", N("1"), "V", S(strings.Repeat("v", 400*1024)))}}))),
		docCase("API_BatchWriteItem/delete-missing-item", write("", on(d("1000")))),
		docCase("API_BatchWriteItem/capacity", st("", func(n namer) any {
			return &dynamodb.BatchWriteItemInput{RequestItems: on(p("1"), p("2"))(n), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		})),
		docCase("API_BatchGetItem/found-and-missing", get("", it("Id", N("123")), it("Id", N("1000")), it("Id", N("789")))),
		docCase("API_BatchGetItem/100-keys", get("", manyKeys(100)...)),
		docCase("API_BatchGetItem/101-keys-refused", get(vErr, manyKeys(101)...)),
		docCase("API_BatchGetItem/duplicate-keys-refused", get(vErr, it("Id", N("123")), it("Id", N("123")))),
		docCase("API_BatchGetItem/key-wrong-schema", get(vErr, it("Id", N("123"), "Title", S("x")))),
		docCase("API_BatchGetItem/table-missing", st(rnf, func(n namer) any {
			return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{n.T("nope"): {Keys: []item{it("Id", N("1"))}}}}
		})),
		docCase("API_BatchGetItem/empty-keys-refused", get(vErr)),
		docCase("API_BatchGetItem/consistent-capacity", st("", func(n namer) any {
			return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{n.T(docCatalog): {
				Keys: []item{it("Id", N("123")), it("Id", N("456"))}, ConsistentRead: aws.Bool(true)}},
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		})),
	}
}

// docTxnCases: API_TransactWriteItems, API_TransactGetItems and
// transaction-apis.html.
func docTxnCases() []tcase {
	tput := func(x item, cond string) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{Item: x, ConditionExpression: condPtr(cond)}}
	}
	tupd := func(id, expr string, vals item) types.TransactWriteItem {
		return types.TransactWriteItem{Update: &types.Update{Key: it("Id", N(id)), UpdateExpression: str(expr), ExpressionAttributeValues: vals}}
	}
	tdel := func(id string) types.TransactWriteItem {
		return types.TransactWriteItem{Delete: &types.Delete{Key: it("Id", N(id))}}
	}
	tchk := func(id, cond string, rvf types.ReturnValuesOnConditionCheckFailure) types.TransactWriteItem {
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{Key: it("Id", N(id)), ConditionExpression: condPtr(cond), ReturnValuesOnConditionCheckFailure: rvf}}
	}
	w := func(want, token string, items ...types.TransactWriteItem) step {
		return st(want, func(n namer) any {
			in := &dynamodb.TransactWriteItemsInput{}
			for _, x := range items {
				tn := str(n.T(docCatalog))
				switch {
				case x.Put != nil:
					c := *x.Put
					c.TableName = tn
					x.Put = &c
				case x.Update != nil:
					c := *x.Update
					c.TableName = tn
					x.Update = &c
				case x.Delete != nil:
					c := *x.Delete
					c.TableName = tn
					x.Delete = &c
				case x.ConditionCheck != nil:
					c := *x.ConditionCheck
					c.TableName = tn
					x.ConditionCheck = &c
				}
				in.TransactItems = append(in.TransactItems, x)
			}
			if token != "" {
				in.ClientRequestToken = str(n.Tok(token))
			}
			return in
		})
	}
	g := func(want string, ids ...string) step {
		return st(want, func(n namer) any {
			in := &dynamodb.TransactGetItemsInput{}
			for _, id := range ids {
				in.TransactItems = append(in.TransactItems, types.TransactGetItem{Get: &types.Get{TableName: str(n.T(docCatalog)), Key: it("Id", N(id))}})
			}
			return in
		})
	}
	many := func(count int) []types.TransactWriteItem {
		var out []types.TransactWriteItem
		for i := range count {
			out = append(out, tput(it("Id", N(fmt.Sprint(3000+i))), ""))
		}
		return out
	}
	ids := func(count int) []string {
		var out []string
		for i := range count {
			out = append(out, fmt.Sprint(i))
		}
		return out
	}
	one := it(":one", N("1"))
	return []tcase{
		docCase("API_TransactWriteItems/all-actions", w("", "",
			tput(it("Id", N("1")), "attribute_not_exists(Id)"), tupd("123", "ADD Price :one", one), tdel("456"),
			tchk("789", "attribute_exists(Id)", "")), scanAll(docCatalog)),
		docCase("API_TransactWriteItems/same-item-twice-refused", w(vErr, "", tupd("123", "ADD Price :one", one), tchk("123", "attribute_exists(Id)", ""))),
		docCase("API_TransactWriteItems/condition-fails-all-or-nothing", w(txCanc, "",
			tput(it("Id", N("1")), ""), tchk("789", "attribute_not_exists(Id)", types.ReturnValuesOnConditionCheckFailureAllOld)),
			scanAll(docCatalog)),
		docCase("API_TransactWriteItems/100-actions", w("", "", many(100)...)),
		docCase("API_TransactWriteItems/101-actions-refused", w(vErr, "", many(101)...)),
		docCase("API_TransactWriteItems/empty-refused", w(vErr, "")),
		docCase("API_TransactWriteItems/token-idempotent", w("", "t1", tupd("123", "ADD Price :one", one)),
			w("", "t1", tupd("123", "ADD Price :one", one)), getProj("", "123", "Price")),
		docCase("API_TransactWriteItems/token-other-parameters", w("", "t2", tupd("123", "ADD Price :one", one)),
			w(ipm, "t2", tupd("456", "ADD Price :one", one))),
		docCase("API_TransactWriteItems/condition-check-without-condition", w(vErr, "", tchk("123", "", ""))),
		docCase("API_TransactWriteItems/update-type-error", w(vErr, "", tupd("123", "ADD Title :one", one))),
		docCase("API_TransactGetItems/in-order", g("", "789", "1000", "123")),
		docCase("API_TransactGetItems/100", g("", ids(100)...)),
		docCase("API_TransactGetItems/101-refused", g(vErr, ids(101)...)),
		docCase("API_TransactGetItems/same-item-twice-refused", g(vErr, "123", "123")),
		docCase("API_TransactGetItems/projection", st("", func(n namer) any {
			return &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{{Get: &types.Get{
				TableName: str(n.T(docCatalog)), Key: it("Id", N("123")), ProjectionExpression: str("Title, #c"),
				ExpressionAttributeNames: names("#c", "Comment")}}}}
		})),
	}
}

func condPtr(c string) *string {
	if c == "" {
		return nil
	}
	return str(c)
}
