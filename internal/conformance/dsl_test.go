//go:build conformance

package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A small language for cases: attribute values, items, and steps.

type av = types.AttributeValue
type item = map[string]types.AttributeValue

var str = aws.String

func S(s string) av     { return &types.AttributeValueMemberS{Value: s} }
func N(s string) av     { return &types.AttributeValueMemberN{Value: s} }
func B(s string) av     { return &types.AttributeValueMemberB{Value: []byte(s)} }
func BOOL(b bool) av    { return &types.AttributeValueMemberBOOL{Value: b} }
func NULL() av          { return &types.AttributeValueMemberNULL{Value: true} }
func SS(s ...string) av { return &types.AttributeValueMemberSS{Value: s} }
func NS(s ...string) av { return &types.AttributeValueMemberNS{Value: s} }
func L(v ...av) av      { return &types.AttributeValueMemberL{Value: v} }
func M(kv ...any) av    { return &types.AttributeValueMemberM{Value: it(kv...)} }
func BS(s ...string) av {
	out := make([][]byte, len(s))
	for i, x := range s {
		out[i] = []byte(x)
	}
	return &types.AttributeValueMemberBS{Value: out}
}

// it builds an item (or a key, or expression values) from name, value
// pairs.
func it(kv ...any) item {
	m := item{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(av)
	}
	return m
}

// names builds ExpressionAttributeNames from pairs.
func names(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func st(want string, f func(n namer) any) step { return step{want: want, req: f} }
func ok(f func(n namer) any) step              { return st("", f) }

const (
	vErr   = "ValidationException"
	ccf    = "ConditionalCheckFailedException"
	rnf    = "ResourceNotFoundException"
	inUse  = "ResourceInUseException"
	txCanc = "TransactionCanceledException"
	ipm    = "IdempotentParameterMismatchException"
)

var (
	tS = types.ScalarAttributeTypeS
	tN = types.ScalarAttributeTypeN
	tB = types.ScalarAttributeTypeB
)

type tableMod func(*dynamodb.CreateTableInput)

// createIn is the CreateTable input of an on-demand table.
func createIn(n namer, tn, hash string, ht types.ScalarAttributeType, rng string, rt types.ScalarAttributeType, mods ...tableMod) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName:   str(n.T(tn)),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema:   []types.KeySchemaElement{{AttributeName: str(hash), KeyType: types.KeyTypeHash}},
	}
	addDef(in, hash, ht)
	if rng != "" {
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: str(rng), KeyType: types.KeyTypeRange})
		addDef(in, rng, rt)
	}
	for _, m := range mods {
		m(in)
	}
	return in
}

func addDef(in *dynamodb.CreateTableInput, name string, t types.ScalarAttributeType) {
	for _, d := range in.AttributeDefinitions {
		if *d.AttributeName == name {
			return
		}
	}
	in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: str(name), AttributeType: t})
}

func keySchema(hash, rng string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: str(hash), KeyType: types.KeyTypeHash}}
	if rng != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: str(rng), KeyType: types.KeyTypeRange})
	}
	return ks
}

func projection(pt types.ProjectionType, nonKey ...string) *types.Projection {
	p := &types.Projection{ProjectionType: pt}
	if len(nonKey) > 0 {
		p.NonKeyAttributes = nonKey
	}
	return p
}

// gsi adds a global secondary index; rng "" for none.
func gsi(name, hash string, ht types.ScalarAttributeType, rng string, rt types.ScalarAttributeType, pt types.ProjectionType, nonKey ...string) tableMod {
	return func(in *dynamodb.CreateTableInput) {
		addDef(in, hash, ht)
		if rng != "" {
			addDef(in, rng, rt)
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: str(name), KeySchema: keySchema(hash, rng), Projection: projection(pt, nonKey...),
		})
	}
}

// lsi adds a local secondary index on the table's hash key and rng.
func lsi(name, rng string, rt types.ScalarAttributeType, pt types.ProjectionType, nonKey ...string) tableMod {
	return func(in *dynamodb.CreateTableInput) {
		addDef(in, rng, rt)
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
			IndexName: str(name), KeySchema: keySchema(*in.KeySchema[0].AttributeName, rng), Projection: projection(pt, nonKey...),
		})
	}
}

func create(tn, hash string, ht types.ScalarAttributeType, rng string, rt types.ScalarAttributeType, mods ...tableMod) step {
	return ok(func(n namer) any { return createIn(n, tn, hash, ht, rng, rt, mods...) })
}

// putAll writes items with BatchWriteItem (25 at most).
func putAll(tn string, items ...item) step {
	if len(items) > 25 {
		panic("putAll: more than 25 items")
	}
	return ok(func(n namer) any {
		var reqs []types.WriteRequest
		for _, x := range items {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: x}})
		}
		return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{n.T(tn): reqs}}
	})
}

func put(tn string, x item) step {
	return ok(func(n namer) any { return &dynamodb.PutItemInput{TableName: str(n.T(tn)), Item: x} })
}

// getAll reads the whole table "tn" with a consistent Scan, to show a
// case's effect.
func scanAll(tn string) step {
	return ok(func(n namer) any { return &dynamodb.ScanInput{TableName: str(n.T(tn)), ConsistentRead: aws.Bool(true)} })
}

func getKey(tn string, key item) step {
	return ok(func(n namer) any {
		return &dynamodb.GetItemInput{TableName: str(n.T(tn)), Key: key, ConsistentRead: aws.Bool(true)}
	})
}

// The fixtures most cases start from.

// fixH is table "h": hash key pk (S), with a few items of every type.
func fixH() []step {
	return []step{
		create("h", "pk", tS, "", ""),
		putAll("h", hItems()...),
	}
}

func hItems() []item {
	return []item{
		it("pk", S("a"), "n", N("1"), "s", S("x"), "ss", SS("a", "b"), "ns", NS("1", "2"), "bs", BS("a", "b"),
			"l", L(N("1"), S("x"), L(N("2"))), "m", M("a", N("1"), "b", M("c", S("d"))),
			"bool", BOOL(true), "nul", NULL(), "bin", B("xyz")),
		it("pk", S("b"), "n", N("2"), "s", S("y")),
		it("pk", S("c"), "n", N("-3.5"), "s", S("xy"), "l", L()),
		it("pk", S("d"), "n", S("not a number"), "m", M()),
	}
}

// fixR is table "r": hash pk (S) and range sk (N), a GSI "gAll" on g (S)
// and sk with ALL, a GSI "gKeys" on g alone with KEYS_ONLY, a GSI "gInc"
// on gn (N) with INCLUDE a, and an LSI "lAll" on l (S) with ALL; the index
// keys are sparse.
func fixR() []step {
	return []step{
		create("r", "pk", tS, "sk", tN,
			gsi("gAll", "g", tS, "sk", tN, types.ProjectionTypeAll),
			gsi("gKeys", "g", tS, "", "", types.ProjectionTypeKeysOnly),
			gsi("gInc", "gn", tN, "", "", types.ProjectionTypeInclude, "a"),
			lsi("lAll", "l", tS, types.ProjectionTypeAll),
			lsi("lKeys", "ln", tN, types.ProjectionTypeKeysOnly)),
		putAll("r", rItems()...),
	}
}

func rItems() []item {
	var out []item
	for _, pk := range []string{"p1", "p2", "p3"} {
		for sk := 1; sk <= 6; sk++ {
			x := it("pk", S(pk), "sk", N(fmt.Sprint(sk)), "a", N(fmt.Sprint(sk*10)), "b", S(strings.Repeat("b", sk)))
			if sk%2 == 0 {
				x["g"] = S("g" + fmt.Sprint(sk%3))
			}
			if sk%3 == 0 {
				x["gn"] = N(fmt.Sprint(sk))
			}
			if sk != 4 {
				x["l"] = S(fmt.Sprintf("l%d", 7-sk))
				x["ln"] = N(fmt.Sprint(sk % 4))
			}
			out = append(out, x)
		}
	}
	return out
}

// with prepends fixture steps to a case's own.
func with(fix []step, steps ...step) []step {
	return append(append([]step{}, fix...), steps...)
}

func tc(name string, steps ...step) tcase { return tcase{name: name, steps: steps} }

// nullFalse is {"NULL": false}, which DynamoDB refuses.
var nullFalse = types.AttributeValueMemberNULL{Value: false}

// named names a step.
func named(name string, s step) step {
	s.name = name
	return s
}

// group is a case made of a fixture and named steps, each counted as a case:
// the steps must not change what the others read.
func group(name string, fix []step, steps []step) tcase {
	return tcase{name: name, steps: with(fix, steps...), count: len(steps)}
}
