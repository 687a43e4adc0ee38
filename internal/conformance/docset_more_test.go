//go:build conformance

package conformance

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// docMoreCases: return values, capacity and item collection metrics on
// indexed tables, key order, keyword case and TTL, from the same pages as
// the rest of the documentation set.
func docMoreCases() []tcase {
	r := func(name string, steps ...step) tcase { return tc("doc/"+name, with(docReplyFix(), steps...)...) }
	replyPut := func(want string, f func(*dynamodb.PutItemInput)) step {
		return st(want, func(n namer) any {
			in := &dynamodb.PutItemInput{TableName: str(n.T(docReply)), Item: it("Id", S(docThread1), "ReplyDateTime", S("2016-01-01"),
				"PostedBy", S("User D"), "Votes", N("7"), "Message", S("new"))}
			f(in)
			return in
		})
	}
	u := func(name, want, expr string, rv types.ReturnValue, kv ...any) tcase {
		return docCase("UpdateExpressions/"+name, updPC(want, "123", expr, rv, kv...))
	}
	c := func(name, want, cond string, kv ...any) tcase {
		return docCase("OperatorsAndFunctions/"+name, delIf(want, "123", cond, kv...))
	}
	g := func(name, want, proj string, kv ...any) tcase {
		return docCase("ProjectionExpressions/"+name, getProj(want, "123", proj, kv...))
	}
	cs := []tcase{
		// API_PutItem and friends: ReturnItemCollectionMetrics (tables with
		// a local index only) and ReturnConsumedCapacity INDEXES.
		r("API_PutItem/item-collection-metrics", replyPut("", func(in *dynamodb.PutItemInput) {
			in.ReturnItemCollectionMetrics = types.ReturnItemCollectionMetricsSize
		})),
		docCase("API_PutItem/item-collection-metrics-no-lsi", putPC("", it("Id", N("1")), func(in *dynamodb.PutItemInput) {
			in.ReturnItemCollectionMetrics = types.ReturnItemCollectionMetricsSize
		})),
		r("API_PutItem/capacity-indexes", replyPut("", func(in *dynamodb.PutItemInput) { in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes })),
		r("API_PutItem/capacity-total-indexed", replyPut("", func(in *dynamodb.PutItemInput) { in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal })),
		r("API_UpdateItem/item-collection-metrics", st("", func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T(docReply)), Key: it("Id", S(docThread1), "ReplyDateTime", S("2015-09-15T19:58:22.947Z")),
				UpdateExpression: str("SET Votes = Votes + :one"), ExpressionAttributeValues: it(":one", N("1")),
				ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
				ReturnValues: types.ReturnValueUpdatedNew}
		})),
		r("API_DeleteItem/item-collection-metrics", st("", func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T(docReply)), Key: it("Id", S(docThread1), "ReplyDateTime", S("2015-09-15T19:58:22.947Z")),
				ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}
		})),
		r("API_BatchWriteItem/item-collection-metrics", st("", func(n namer) any {
			return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{n.T(docReply): {
				{PutRequest: &types.PutRequest{Item: it("Id", S("t9"), "ReplyDateTime", S("d"), "Votes", N("1"))}}}},
				ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}
		})),
		r("API_TransactWriteItems/capacity-indexes", st("", func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: str(n.T(docReply)),
				Item: it("Id", S("t9"), "ReplyDateTime", S("d"), "PostedBy", S("u"), "Votes", N("1"))}}},
				ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize}
		})),
		r("API_TransactGetItems/capacity", st("", func(n namer) any {
			return &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: str(n.T(docReply)), Key: it("Id", S(docThread1), "ReplyDateTime", S("2015-09-15T19:58:22.947Z"))}},
				{Get: &types.Get{TableName: str(n.T(docReply)), Key: it("Id", S("nope"), "ReplyDateTime", S("x"))}}},
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		})),
		r("API_Query/capacity-indexes-lsi", query("", docReply, "Id = :id", func(in *dynamodb.QueryInput) {
			in.IndexName = str("Votes-index")
			in.Select = types.SelectAllAttributes
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		}, ":id", S(docThread1))),
		r("API_Query/capacity-indexes-gsi", query("", docReply, "PostedBy = :u", func(in *dynamodb.QueryInput) {
			in.IndexName = str("PostedBy-index")
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		}, ":u", S("User B"))),
		// Query.Pagination on indexes: LastEvaluatedKey holds the table's and
		// the index's keys.
		r("Pagination/gsi-last-evaluated-key", query("", docReply, "PostedBy = :u", func(in *dynamodb.QueryInput) {
			in.IndexName = str("PostedBy-index")
			in.Limit = aws.Int32(1)
			in.ScanIndexForward = aws.Bool(false)
		}, ":u", S("User A"))),
		r("Pagination/lsi-last-evaluated-key", query("", docReply, "Id = :id", func(in *dynamodb.QueryInput) {
			in.IndexName = str("Votes-index")
			in.Limit = aws.Int32(2)
		}, ":id", S(docThread1))),
		r("Pagination/lsi-resume", query("", docReply, "Id = :id", func(in *dynamodb.QueryInput) {
			in.IndexName = str("Votes-index")
			in.Limit = aws.Int32(2)
			in.ExclusiveStartKey = it("Id", S(docThread1), "ReplyDateTime", S("2015-09-15T19:58:22.947Z"), "Votes", N("3"))
		}, ":id", S(docThread1))),
		r("Pagination/count-with-limit", query("", docReply, "Id = :id", func(in *dynamodb.QueryInput) {
			in.Select = types.SelectCount
			in.Limit = aws.Int32(3)
		}, ":id", S(docThread1))),
		// Return values of updates.
		u("ReturnValues/updated-old-list-element-removed", "", "REMOVE RelatedItems[1]", types.ReturnValueUpdatedOld),
		u("ReturnValues/updated-new-list-append", "", "SET RelatedItems = list_append(RelatedItems, :l)", types.ReturnValueUpdatedNew, ":l", L(N("1"))),
		u("ReturnValues/updated-new-set-add", "", "ADD Color :c", types.ReturnValueUpdatedNew, ":c", SS("Green")),
		u("ReturnValues/updated-new-list-element", "", "SET RelatedItems[0] = :v", types.ReturnValueUpdatedNew, ":v", N("1")),
		u("ReturnValues/updated-old-nested-map", "", "SET ProductReviews.OneStar[0] = :v, Pictures.FrontView = :v", types.ReturnValueUpdatedOld, ":v", S("x")),
		u("ReturnValues/updated-new-removed-attribute", "", "REMOVE Brand", types.ReturnValueUpdatedNew),
		u("ReturnValues/all-new-after-delete-set", "", "DELETE Scores :s", types.ReturnValueAllNew, ":s", NS("2.5")),
		docCase("ConditionExpressions/update-return-values-on-failure", updPC(ccf, "123", "SET Price = :p", types.ReturnValueAllNew, ":p", N("1")).
			withCond("Price < :p").withRVOnFailure()),
		// Keywords in any case, spacing.
		u("Syntax/lowercase-keywords", "", "set Price = :p remove Brand add Tally :one delete Color :c", types.ReturnValueAllNew,
			":p", N("1"), ":one", N("1"), ":c", SS("Red")),
		u("Syntax/newlines", "", "SET\n\tPrice = :p,\n\tTitle = :t", types.ReturnValueUpdatedNew, ":p", N("1"), ":t", S("t")),
		u("Syntax/empty-refused", vErr, " ", types.ReturnValueAllNew),
		u("Syntax/empty-string-refused", vErr, "", types.ReturnValueAllNew).withEmptyUpdate(),
		u("Syntax/newline-only-refused", vErr, "\n", types.ReturnValueAllNew),
		c("Syntax/condition-blank-refused", vErr, " "),
		c("Syntax/condition-empty-refused", vErr, ""),
		g("Syntax/projection-blank-refused", vErr, " "),
		r("KeyConditions/blank-refused", query(vErr, docReply, " ", nil)),
		r("QueryFilter/blank-refused", query(vErr, docReply, "Id = :id", func(in *dynamodb.QueryInput) { in.FilterExpression = str("  ") }, ":id", S("x"))),
		u("Syntax/trailing-comma-refused", vErr, "SET Price = :p,", types.ReturnValueAllNew, ":p", N("1")),
		u("SET/add-decimal", "", "ADD Price :d", types.ReturnValueUpdatedNew, ":d", N("0.1")),
		u("SET/list_append-two-values", "", "SET Fresh = list_append(:a, :b)", types.ReturnValueUpdatedNew, ":a", L(N("1")), ":b", L(N("2"))),
		u("SET/if_not_exists-nested", "", "SET Pictures.TopView = if_not_exists(Pictures.TopView, :v)", types.ReturnValueUpdatedNew, ":v", S("t")),
		u("ADD/nested-path", "", "ADD ProductReviews.#c :one", types.ReturnValueUpdatedNew, "#c", "Count", ":one", N("1")),
		u("REMOVE/nested-list-element", "", "REMOVE ProductReviews.FiveStar[0]", types.ReturnValueAllNew),
		c("LogicalEvaluations/lowercase", "", "Price between :a and :b and not attribute_exists(Nothing)", ":a", N("1"), ":b", N("1000")),
		c("Comparators/between-strings", "", "Title BETWEEN :a AND :b", ":a", S("Bicycle"), ":b", S("Bicycle 2")),
		c("Comparators/in-mixed-types", "", "Price IN (:s, :n)", ":s", S("500"), ":n", N("500")),
		c("Comparators/number-scales", "", "Price = :p", ":p", N("500.000")),
		c("Comparators/path-to-path", ccf, "Title = Brand"),
		c("Comparators/size-on-right", "", "Price > size(Title)"),
		c("Functions/contains-path-operand", ccf, "contains(Title, Brand)"),
		c("Functions/begins_with-binary", "", "begins_with(Image, :b)", ":b", B("ab")),
		c("Functions/begins_with-on-number-false", ccf, "begins_with(Price, :s)", ":s", S("5")),
		c("Functions/contains-binary-set", ccf, "contains(Color, :b)", ":b", B("Red")),
		c("Functions/size-nested-list", "", "size(ProductReviews.FiveStar) = :two", ":two", N("2")),
		c("Functions/attribute_type-number-set", "", "attribute_type(Scores, :t)", ":t", S("NS")),
		c("Functions/attribute_type-map", "", "attribute_type(Pictures, :t)", ":t", S("M")),
		c("Functions/attribute_type-binary", "", "attribute_type(Image, :t)", ":t", S("B")),
		c("Functions/attribute_exists-list-element", "", "attribute_exists(RelatedItems[2])"),
		c("Functions/attribute_exists-list-element-past-end", ccf, "attribute_exists(RelatedItems[3])"),
		g("merge-map-paths", "", "Pictures.FrontView, Pictures.RearView"),
		g("nested-list-in-map", "", "ProductReviews.FiveStar[1]"),
		g("map-and-list-mixed", "", "ProductReviews.OneStar[0], RelatedItems[1], Title"),
		g("index-on-scalar", "", "Title[0]"),
		g("key-on-list", "", "RelatedItems.x"),
		docCase("ProjectionExpressions/with-attributes-to-get-refused", st(vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T(docCatalog)), Key: it("Id", N("123")),
				ProjectionExpression: str("Title"), AttributesToGet: []string{"Title"}}
		})),
		// Sort order: UTF-8 bytes for strings, unsigned bytes for binary.
		tc("doc/KeyConditions/string-order-utf8", create("o", "pk", tS, "sk", tS),
			putAll("o", it("pk", S("p"), "sk", S("a")), it("pk", S("p"), "sk", S("B")), it("pk", S("p"), "sk", S("é")),
				it("pk", S("p"), "sk", S("\uff21")), it("pk", S("p"), "sk", S("\U0001F600")), it("pk", S("p"), "sk", S("a\x00"))),
			st("", func(n namer) any {
				return &dynamodb.QueryInput{TableName: str(n.T("o")), KeyConditionExpression: str("pk = :p"), ExpressionAttributeValues: it(":p", S("p"))}
			}),
			st("", func(n namer) any {
				return &dynamodb.QueryInput{TableName: str(n.T("o")), KeyConditionExpression: str("pk = :p AND sk > :s"),
					ExpressionAttributeValues: it(":p", S("p"), ":s", S("\uff21"))}
			})),
		tc("doc/KeyConditions/binary-order-unsigned", create("o", "pk", tS, "sk", tB),
			putAll("o", it("pk", S("p"), "sk", B("\x01")), it("pk", S("p"), "sk", B("\x7f")), it("pk", S("p"), "sk", B("\x80")),
				it("pk", S("p"), "sk", B("\xff")), it("pk", S("p"), "sk", B("\x00\xff"))),
			st("", func(n namer) any {
				return &dynamodb.QueryInput{TableName: str(n.T("o")), KeyConditionExpression: str("pk = :p"), ExpressionAttributeValues: it(":p", S("p"))}
			}),
			st("", func(n namer) any {
				return &dynamodb.QueryInput{TableName: str(n.T("o")), KeyConditionExpression: str("pk = :p AND sk < :s"),
					ExpressionAttributeValues: it(":p", S("p"), ":s", B("\x80"))}
			})),
		docCase("OperatorsAndFunctions/Comparators/string-order-supplementary", delIf("", "123", "Title < :t", ":t", S("\U0001F600"))),
		docCase("OperatorsAndFunctions/Comparators/binary-order-unsigned", delIf("", "123", "Image < :b", ":b", B("\xff"))),
		// Transactions and tokens.
		docCase("API_TransactWriteItems/capacity-total", st("", func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: str(n.T(docCatalog)), Item: it("Id", N("1"))}},
				{ConditionCheck: &types.ConditionCheck{TableName: str(n.T(docCatalog)), Key: it("Id", N("123")), ConditionExpression: str("attribute_exists(Id)")}}},
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		})),
		docCase("API_TransactWriteItems/table-missing", st(rnf, func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: str(n.T("nope")), Item: it("Id", N("1"))}}}}
		})),
		docCase("API_TransactWriteItems/item-too-large", st(vErr, func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: str(n.T(docCatalog)), Item: it("Id", N("1"), "V", S(strings.Repeat("v", 400*1024)))}}}}
		})),
		docCase("API_TransactWriteItems/token-too-long", st(vErr, func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{ClientRequestToken: str(strings.Repeat("t", 37)), TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: str(n.T(docCatalog)), Item: it("Id", N("1"))}}}}
		})),
		docCase("API_TransactWriteItems/key-update-refused", st(txCanc, func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Update: &types.Update{TableName: str(n.T(docCatalog)), Key: it("Id", N("123")), UpdateExpression: str("SET Id = :i"),
					ExpressionAttributeValues: it(":i", N("1"))}}}}
		})),
		// Time to live: expired items stay readable until TTL deletes them
		// (howitworks-ttl.html).
		tc("doc/TTL/expired-item-still-readable", create("t", "pk", tS, "", ""),
			st("", func(n namer) any {
				return &dynamodb.UpdateTimeToLiveInput{TableName: str(n.T("t")), TimeToLiveSpecification: &types.TimeToLiveSpecification{
					AttributeName: str("exp"), Enabled: aws.Bool(true)}}
			}),
			put("t", it("pk", S("a"), "exp", N("1"))),
			put("t", it("pk", S("b"), "exp", S("not a number"))),
			getKey("t", it("pk", S("a"))),
			getKey("t", it("pk", S("b")))),
		// UpdateTable with nothing to change.
		tc("doc/API_UpdateTable/nothing", create("t", "pk", tS, "", ""), st(vErr, func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("t"))}
		})),
		tc("doc/API_DeleteTable/answer", create("t", "pk", tS, "", ""), ok(func(n namer) any {
			return &dynamodb.DeleteTableInput{TableName: str(n.T("t"))}
		})),
		tc("doc/API_CreateTable/stream", st("", func(n namer) any {
			in := createIn(n, "t", "pk", tS, "", "")
			in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
			return in
		})),
		tc("doc/API_UpdateTable/stream-without-view-type", create("t", "pk", tS, "", ""), st(vErr, func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("t")), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true)}}
		})),
		tc("doc/API_UpdateTable/stream-enable", create("t", "pk", tS, "", ""), st("", func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("t")), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true),
				StreamViewType: types.StreamViewTypeKeysOnly}}
		}), describe("t")),
		tc("doc/API_CreateTable/stream-without-view-type", st(vErr, func(n namer) any {
			in := createIn(n, "t", "pk", tS, "", "")
			in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true)}
			return in
		})),
	}
	return cs
}

// withEmptyUpdate makes an UpdateItem case's UpdateExpression the empty
// string.
func (c tcase) withEmptyUpdate() tcase {
	k := len(docCatalogFix())
	req := c.steps[k].req
	c.steps[k].req = func(n namer) any {
		in := req(n).(*dynamodb.UpdateItemInput)
		in.UpdateExpression = str("")
		return in
	}
	return c
}

// withRVOnFailure asks an UpdateItem step for the item when its condition
// fails.
func (s step) withRVOnFailure() step {
	req := s.req
	s.req = func(n namer) any {
		in := req(n)
		if u, ok := in.(*dynamodb.UpdateItemInput); ok {
			u.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
		}
		return in
	}
	return s
}
