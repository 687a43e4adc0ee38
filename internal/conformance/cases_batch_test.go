//go:build conformance

package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func keysH(keys ...string) []item {
	out := make([]item, len(keys))
	for i, k := range keys {
		out[i] = it("pk", S(k))
	}
	return out
}

func bget(n namer, kas map[string]types.KeysAndAttributes) *dynamodb.BatchGetItemInput {
	m := map[string]types.KeysAndAttributes{}
	for tn, ka := range kas {
		m[n.T(tn)] = ka
	}
	return &dynamodb.BatchGetItemInput{RequestItems: m}
}

func bwrite(n namer, reqs map[string][]types.WriteRequest) *dynamodb.BatchWriteItemInput {
	m := map[string][]types.WriteRequest{}
	for tn, r := range reqs {
		m[n.T(tn)] = r
	}
	return &dynamodb.BatchWriteItemInput{RequestItems: m}
}

func putReq(x item) types.WriteRequest {
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: x}}
}
func delReq(k item) types.WriteRequest {
	return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
}
func manyKeys(count int, f func(i int) item) []item {
	out := make([]item, count)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// batchCases: BatchGetItem and BatchWriteItem.
func batchCases() []tcase {
	both := func() []step { return append(fixH(), fixR()...) }
	var cs []tcase
	cs = append(cs,
		tc("batchget/two-tables", with(both(), ok(func(n namer) any {
			return bget(n, map[string]types.KeysAndAttributes{
				"h": {Keys: keysH("a", "b", "missing")},
				"r": {Keys: []item{it("pk", S("p1"), "sk", N("1")), it("pk", S("p2"), "sk", N("6"))}, ConsistentRead: aws.Bool(true)},
			})
		}))...),
		tc("batchget/capacity", with(both(), ok(func(n namer) any {
			in := bget(n, map[string]types.KeysAndAttributes{
				"h": {Keys: keysH("a", "b", "missing")},
				"r": {Keys: []item{it("pk", S("p1"), "sk", N("1"))}, ConsistentRead: aws.Bool(true)},
			})
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			return in
		}), ok(func(n namer) any {
			in := bget(n, map[string]types.KeysAndAttributes{"h": {Keys: keysH("a")}})
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
			return in
		}))...),
		tc("batchget/projection", with(fixH(), ok(func(n namer) any {
			return bget(n, map[string]types.KeysAndAttributes{"h": {Keys: keysH("a", "b"), ProjectionExpression: str("#n, m.b"), ExpressionAttributeNames: names("#n", "n")}})
		}))...),
		tc("batchget/projection-unused-name", with(fixH(), st(vErr, func(n namer) any {
			return bget(n, map[string]types.KeysAndAttributes{"h": {Keys: keysH("a"), ProjectionExpression: str("n"), ExpressionAttributeNames: names("#n", "n")}})
		}))...),
		tc("batchget/duplicate-keys", with(fixH(), st(vErr, func(n namer) any {
			return bget(n, map[string]types.KeysAndAttributes{"h": {Keys: keysH("a", "a")}})
		}))...),
		tc("batchget/101-keys", with(fixH(), st(vErr, func(n namer) any {
			return bget(n, map[string]types.KeysAndAttributes{"h": {Keys: manyKeys(101, func(i int) item { return it("pk", S(fmt.Sprint(i))) })}})
		}))...),
		tc("batchget/100-keys", with(fixH(), ok(func(n namer) any {
			return bget(n, map[string]types.KeysAndAttributes{"h": {Keys: manyKeys(100, func(i int) item { return it("pk", S(fmt.Sprint(i))) })}})
		}))...),
		tc("batchget/empty", st(vErr, func(n namer) any {
			return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}}
		})),
		tc("batchget/empty-keys", with(fixH(), st(vErr, func(n namer) any {
			return bget(n, map[string]types.KeysAndAttributes{"h": {Keys: []item{}}})
		}))...),
		tc("batchget/missing-table", with(fixH(), st(rnf, func(n namer) any {
			return bget(n, map[string]types.KeysAndAttributes{"h": {Keys: keysH("a")}, "nope": {Keys: keysH("a")}})
		}))...),
		tc("batchget/bad-key", with(fixH(), st(vErr, func(n namer) any {
			return bget(n, map[string]types.KeysAndAttributes{"h": {Keys: []item{it("pk", N("1"))}}})
		}))...),
		tc("batchget/16mb-unprocessed", with(append([]step{create("t", "pk", tS, "", "")}, bigPuts(60)...), ok(func(n namer) any {
			in := bget(n, map[string]types.KeysAndAttributes{"t": {Keys: manyKeys(60, func(i int) item { return it("pk", S(fmt.Sprint(i))) }), ProjectionExpression: str("pk")}})
			return in
		}), ok(func(n namer) any {
			in := bget(n, map[string]types.KeysAndAttributes{"t": {Keys: manyKeys(60, func(i int) item { return it("pk", S(fmt.Sprint(i))) })}})
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			return in
		}))...),

		tc("batchwrite/put-delete", with(both(), ok(func(n namer) any {
			return bwrite(n, map[string][]types.WriteRequest{
				"h": {putReq(it("pk", S("new"), "v", N("1"))), delReq(it("pk", S("a"))), delReq(it("pk", S("missing")))},
				"r": {putReq(it("pk", S("p9"), "sk", N("1"), "g", S("g0")))},
			})
		}), scanAll("h"), ok(func(n namer) any {
			return qIn(n, "gAll", "g = :g", it(":g", S("g0")))
		}))...),
		tc("batchwrite/capacity", with(both(), ok(func(n namer) any {
			in := bwrite(n, map[string][]types.WriteRequest{
				"h": {putReq(it("pk", S("new"), "v", S(strings.Repeat("x", 2000)))), delReq(it("pk", S("a")))},
				"r": {putReq(it("pk", S("p9"), "sk", N("1"), "g", S("g0"), "l", S("l")))},
			})
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
			return in
		}), ok(func(n namer) any {
			in := bwrite(n, map[string][]types.WriteRequest{"h": {putReq(it("pk", S("new2")))}})
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			return in
		}))...),
		tc("batchwrite/26", with(fixH(), st(vErr, func(n namer) any {
			var reqs []types.WriteRequest
			for i := range 26 {
				reqs = append(reqs, putReq(it("pk", S(fmt.Sprint(i)))))
			}
			return bwrite(n, map[string][]types.WriteRequest{"h": reqs})
		}))...),
		tc("batchwrite/25", with(fixH(), ok(func(n namer) any {
			var reqs []types.WriteRequest
			for i := range 25 {
				reqs = append(reqs, putReq(it("pk", S(fmt.Sprint(i)))))
			}
			return bwrite(n, map[string][]types.WriteRequest{"h": reqs})
		}), scanAll("h"))...),
		tc("batchwrite/duplicate-put", with(fixH(), st(vErr, func(n namer) any {
			return bwrite(n, map[string][]types.WriteRequest{"h": {putReq(it("pk", S("x"))), putReq(it("pk", S("x"), "v", N("1")))}})
		}))...),
		tc("batchwrite/put-and-delete-same", with(fixH(), st(vErr, func(n namer) any {
			return bwrite(n, map[string][]types.WriteRequest{"h": {putReq(it("pk", S("a"))), delReq(it("pk", S("a")))}})
		}))...),
		tc("batchwrite/empty", st(vErr, func(n namer) any {
			return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{}}
		})),
		tc("batchwrite/empty-list", with(fixH(), st(vErr, func(n namer) any { return bwrite(n, map[string][]types.WriteRequest{"h": {}}) }))...),
		tc("batchwrite/both-requests", with(fixH(), st(vErr, func(n namer) any {
			return bwrite(n, map[string][]types.WriteRequest{"h": {{PutRequest: &types.PutRequest{Item: it("pk", S("x"))}, DeleteRequest: &types.DeleteRequest{Key: it("pk", S("y"))}}}})
		}))...),
		tc("batchwrite/no-request", with(fixH(), st(vErr, func(n namer) any {
			return bwrite(n, map[string][]types.WriteRequest{"h": {{}}})
		}))...),
		tc("batchwrite/missing-table", with(fixH(), st(rnf, func(n namer) any {
			return bwrite(n, map[string][]types.WriteRequest{"h": {putReq(it("pk", S("x")))}, "nope": {putReq(it("pk", S("x")))}})
		}), scanAll("h"))...),
		tc("batchwrite/bad-item", with(fixH(), st(vErr, func(n namer) any {
			return bwrite(n, map[string][]types.WriteRequest{"h": {putReq(it("pk", S("x"))), putReq(it("pk", N("1")))}})
		}), scanAll("h"))...),
		tc("batchwrite/delete-extra-key-attr", with(fixH(), st(vErr, func(n namer) any {
			return bwrite(n, map[string][]types.WriteRequest{"h": {delReq(it("pk", S("a"), "n", N("1")))}})
		}))...),
		tc("batchwrite/item-too-large", with(fixH(), st(vErr, func(n namer) any {
			return bwrite(n, map[string][]types.WriteRequest{"h": {putReq(it("pk", S("x"), "v", S(strings.Repeat("x", 400*1024))))}})
		}))...),
	)
	return cs
}

// bigPuts writes count items of about 390 KB under keys "0".."count-1" in
// table "t".
func bigPuts(count int) []step {
	var steps []step
	for i := range count {
		steps = append(steps, put("t", it("pk", S(fmt.Sprint(i)), "pad", S(strings.Repeat("p", 390_000)))))
	}
	return steps
}
