//go:build conformance

package conformance

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// validationCases: item and key sizes, numbers, sets, empty values.
func validationCases() []tcase {
	hcase := func(name string, steps ...step) tcase { return tc(name, with(fixH(), steps...)...) }
	p := func(name, want string, x item) tcase {
		key, ok := x["pk"].(*types.AttributeValueMemberS)
		if !ok || key.Value == "" || len(key.Value) > 2048 {
			return hcase("validate/"+name, st(want, func(n namer) any { return putIn(n, x) }))
		}
		return hcase("validate/"+name, st(want, func(n namer) any { return putIn(n, x) }), getKey("h", it("pk", key)))
	}
	var cs []tcase
	size := func(k int) string { return strings.Repeat("x", k) }
	cs = append(cs,
		p("item-400kb-ok", "", it("pk", S("x"), "v", S(size(400*1024-4)))),
		p("item-400kb-over", vErr, it("pk", S("x"), "v", S(size(400*1024-3)))),
		p("item-names-count", vErr, it("pk", S("x"), size(200*1024), S(size(200*1024)))),
		p("hash-2048", "", it("pk", S(size(2048)))),
		p("hash-2049", vErr, it("pk", S(size(2049)))),
		p("hash-utf8-2048", vErr, it("pk", S(strings.Repeat("é", 1025)))),
		p("empty-hash", vErr, it("pk", S(""))),
		p("missing-hash", vErr, it("v", S("x"))),
		p("hash-wrong-type", vErr, it("pk", N("1"))),
		p("empty-string", "", it("pk", S("x"), "v", S(""))),
		p("empty-binary", "", it("pk", S("x"), "v", B(""))),
		p("empty-ss", vErr, it("pk", S("x"), "v", SS())),
		p("empty-ns", vErr, it("pk", S("x"), "v", NS())),
		p("empty-bs", vErr, it("pk", S("x"), "v", BS())),
		p("dup-ss", vErr, it("pk", S("x"), "v", SS("a", "a"))),
		p("dup-ns", vErr, it("pk", S("x"), "v", NS("1", "1"))),
		p("dup-ns-respelled", vErr, it("pk", S("x"), "v", NS("1", "1.0"))),
		p("dup-bs", vErr, it("pk", S("x"), "v", BS("a", "a"))),
		p("ss-empty-element", "", it("pk", S("x"), "v", SS(""))),
		p("nested-empty-set", vErr, it("pk", S("x"), "v", M("a", L(SS())))),
		p("nested-dup-set", vErr, it("pk", S("x"), "v", L(NS("2", "2")))),
		p("empty-list-map", "", it("pk", S("x"), "v", L(), "w", M())),
		p("empty-attr-name", vErr, it("pk", S("x"), "", S("v"))),
		p("nested-empty-attr-name", vErr, it("pk", S("x"), "v", M("", S("v")))),
		p("null-false", vErr, it("pk", S("x"), "v", &nullFalse)),
		p("number-38-digits", "", it("pk", S("x"), "v", N("12345678901234567890123456789012345678"))),
		p("number-39-digits", vErr, it("pk", S("x"), "v", N("123456789012345678901234567890123456789"))),
		p("number-39-digits-trailing-zeros", "", it("pk", S("x"), "v", N("123456789012345678901234567890123456780"))),
		p("number-leading-zeros", "", it("pk", S("x"), "v", N("000123.4500"))),
		p("number-max", "", it("pk", S("x"), "v", N("9.9999999999999999999999999999999999999E+125"))),
		p("number-too-big", vErr, it("pk", S("x"), "v", N("1E+126"))),
		p("number-min", "", it("pk", S("x"), "v", N("1E-130"))),
		p("number-too-small", vErr, it("pk", S("x"), "v", N("1E-131"))),
		p("number-negative-zero", "", it("pk", S("x"), "v", N("-0"))),
		p("number-plus", "", it("pk", S("x"), "v", N("+5"))),
		p("number-dot", vErr, it("pk", S("x"), "v", N("."))),
		p("number-leading-dot", "", it("pk", S("x"), "v", N(".5"))),
		p("number-trailing-dot", "", it("pk", S("x"), "v", N("5."))),
		p("number-exp-lower", "", it("pk", S("x"), "v", N("1e3"))),
		p("number-text", vErr, it("pk", S("x"), "v", N("abc"))),
		p("number-empty", vErr, it("pk", S("x"), "v", N(""))),
		p("number-space", vErr, it("pk", S("x"), "v", N(" 1"))),
		p("number-hex", vErr, it("pk", S("x"), "v", N("0x10"))),
		p("number-inf", vErr, it("pk", S("x"), "v", N("Infinity"))),
		p("number-in-set", vErr, it("pk", S("x"), "v", NS("1", "x"))),
		p("number-set-canonical", "", it("pk", S("x"), "v", NS("1.50", "2E0", "-0.0"))),
		tc("validate/range-1024", with(fixR(), st("", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("r")), Item: it("pk", S("x"), "sk", N("1"), "l", S(size(1024)))}
		}))...),
		tc("validate/lsi-key-1025", with(fixR(), st(vErr, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("r")), Item: it("pk", S("x"), "sk", N("1"), "l", S(size(1025)))}
		}))...),
		tc("validate/gsi-hash-2049", with(fixR(), st(vErr, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("r")), Item: it("pk", S("x"), "sk", N("1"), "g", S(size(2049)))}
		}))...),
		tc("validate/gsi-key-wrong-type", with(fixR(), st(vErr, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("r")), Item: it("pk", S("x"), "sk", N("1"), "g", N("1"))}
		}))...),
		tc("validate/binary-range-1024", create("t", "pk", tS, "sk", tB),
			st("", func(n namer) any {
				return &dynamodb.PutItemInput{TableName: str(n.T("t")), Item: it("pk", S("x"), "sk", B(size(1024)))}
			}),
			st(vErr, func(n namer) any {
				return &dynamodb.PutItemInput{TableName: str(n.T("t")), Item: it("pk", S("x"), "sk", B(size(1025)))}
			}),
			st(vErr, func(n namer) any {
				return &dynamodb.PutItemInput{TableName: str(n.T("t")), Item: it("pk", S("x"), "sk", B(""))}
			})),
		tc("validate/number-key-canonical", create("t", "pk", tN, "", ""),
			put("t", it("pk", N("1.50"))),
			getKey("t", it("pk", N("1.5"))),
			getKey("t", it("pk", N("15E-1"))),
			scanAll("t")),
		hcase("validate/update-makes-item-too-large", put("h", it("pk", S("big"), "v", S(size(300*1024)))),
			st(vErr, func(n namer) any {
				return updIn(n, "big", "SET w = :w", nil, it(":w", S(size(150*1024))))
			})),
		hcase("validate/update-key-too-large", st(vErr, func(n namer) any {
			in := updIn(n, "x", "SET w = :w", nil, it(":w", S("w")))
			in.Key = it("pk", S(size(2049)))
			return in
		})),
		hcase("validate/expression-too-long", st(vErr, func(n namer) any {
			return updIn(n, "a", "SET z = :v"+strings.Repeat(" ", 4100), nil, it(":v", S("x")))
		})),
	)
	return cs
}
