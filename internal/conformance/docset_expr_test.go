//go:build conformance

package conformance

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The documentation set: cases written from DynamoDB's API reference and
// developer guide, each named "doc/<page>/<behaviour>" after the page (and
// section) that states the behaviour, and expecting what that page says.
// They were written from the documentation, not from the engine's code, as
// an independent measure of the engine: a divergence here is either a fault
// of the engine or a place where DynamoDB Local departs from the
// documentation (then listed in known.go).
//
// Pages (developer guide unless marked API):
//
//	OperatorsAndFunctions  Expressions.OperatorsAndFunctions.html
//	UpdateExpressions      Expressions.UpdateExpressions.html
//	ProjectionExpressions  Expressions.ProjectionExpressions.html
//	AttributeNames         Expressions.ExpressionAttributeNames.html
//	AttributeValues        Expressions.ExpressionAttributeValues.html
//	ConditionExpressions   Expressions.ConditionExpressions.html
//	ReservedWords          ReservedWords.html
//	DataTypes              HowItWorks.NamingRulesDataTypes.html
//	Constraints            ServiceQuotas.html (item, key and expression limits)
//	KeyConditions          Query.KeyConditionExpressions.html
//	QueryFilter            Query.FilterExpression.html
//	Pagination             Query.Pagination.html / Scan.html#Scan.Pagination
//	NamingRules            HowItWorks.NamingRulesDataTypes.html#HowItWorks.NamingRules
//	TTL                    howitworks-ttl.html
//	API_<Op>               the API reference page of the operation

// docCatalog is the ProductCatalog table of the developer guide's
// expression examples: hash key Id (N).
const docCatalog = "pc"

// docCatalogFix creates ProductCatalog with the guide's example items.
func docCatalogFix() []step {
	return []step{
		create(docCatalog, "Id", tN, "", ""),
		putAll(docCatalog, docCatalogItems()...),
	}
}

func docCatalogItems() []item {
	return []item{
		it("Id", N("123"), "Title", S("Bicycle 123"), "Description", S("123 description"),
			"BicycleType", S("Hybrid"), "Brand", S("Brand-Company C"), "Price", N("500"),
			"Color", SS("Red", "Black"), "ProductCategory", S("Bicycle"), "InStock", BOOL(true),
			"QuantityOnHand", NULL(), "RelatedItems", L(N("341"), N("472"), N("649")),
			"Pictures", M("FrontView", S("http://example.com/products/123_front.jpg"),
				"RearView", S("http://example.com/products/123_rear.jpg"),
				"SideView", S("http://example.com/products/123_left_side.jpg")),
			"ProductReviews", M("FiveStar", L(S("Excellent! Can't recommend it highly enough! Buy it!"),
				S("Do yourself a favor and buy this.")),
				"OneStar", L(S("Terrible product! Do not buy this."))),
			"Comment", S("This product sells out quickly during the summer"),
			"Safety.Warning", S("Always wear a helmet"), "Image", B("abcd"), "Scores", NS("1", "2.5")),
		it("Id", N("456"), "Title", S("Book 456"), "Price", N("20"), "ProductCategory", S("Book"),
			"Authors", SS("Author1", "Author2"), "PageCount", N("300"), "InPublication", BOOL(false)),
		it("Id", N("789"), "Title", S("Bicycle 789"), "Price", N("1500"), "ProductCategory", S("Bicycle"),
			"Color", SS("Blue"), "Brand", S("Brand-Company A")),
	}
}

// docCase is a case on ProductCatalog.
func docCase(name string, steps ...step) tcase {
	return tc("doc/"+name, with(docCatalogFix(), steps...)...)
}

// exprArgs are a request's expression attribute names and values, as
// alternating pairs: "#n", "name" for a name, ":v", value for a value.
func exprArgs(kv ...any) (map[string]string, item) {
	var nm map[string]string
	var vals item
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		switch v := kv[i+1].(type) {
		case string:
			if nm == nil {
				nm = map[string]string{}
			}
			nm[k] = v
		case av:
			if vals == nil {
				vals = item{}
			}
			vals[k] = v
		}
	}
	return nm, vals
}

// delIf is a DeleteItem of ProductCatalog item Id with a condition: the
// guide's own way of showing condition expressions.
func delIf(want, id, cond string, kv ...any) step {
	return st(want, func(n namer) any {
		nm, vals := exprArgs(kv...)
		return &dynamodb.DeleteItemInput{
			TableName: str(n.T(docCatalog)), Key: it("Id", N(id)), ConditionExpression: str(cond),
			ExpressionAttributeNames: nm, ExpressionAttributeValues: vals, ReturnValues: types.ReturnValueAllOld,
		}
	})
}

// updPC is an UpdateItem of ProductCatalog item Id returning rv.
func updPC(want, id, expr string, rv types.ReturnValue, kv ...any) step {
	return st(want, func(n namer) any {
		nm, vals := exprArgs(kv...)
		in := &dynamodb.UpdateItemInput{
			TableName: str(n.T(docCatalog)), Key: it("Id", N(id)),
			ExpressionAttributeNames: nm, ExpressionAttributeValues: vals, ReturnValues: rv,
		}
		if expr != "" {
			in.UpdateExpression = str(expr)
		}
		return in
	})
}

// getProj is a consistent GetItem of ProductCatalog item Id with a
// projection ("" for none).
func getProj(want, id, proj string, kv ...any) step {
	return st(want, func(n namer) any {
		nm, _ := exprArgs(kv...)
		in := &dynamodb.GetItemInput{TableName: str(n.T(docCatalog)), Key: it("Id", N(id)), ConsistentRead: aws.Bool(true),
			ExpressionAttributeNames: nm}
		if proj != "" {
			in.ProjectionExpression = str(proj)
		}
		return in
	})
}

func docExprCases() []tcase {
	return append(append(append(docConditionCases(), docUpdateCases()...), docProjectionCases()...), docNameCases()...)
}

// docConditionCases: Expressions.OperatorsAndFunctions and
// Expressions.ConditionExpressions.
func docConditionCases() []tcase {
	const p = "OperatorsAndFunctions"
	c := func(name, want, cond string, kv ...any) tcase {
		return docCase(p+"/"+name, delIf(want, "123", cond, kv...), getProj("", "123", "Id"))
	}
	hundred := strings.TrimSuffix(strings.Repeat(":a, ", 99), ", ") + ", :p"
	cs := []tcase{
		// Making comparisons.
		c("Comparators/eq", "", "Price = :p", ":p", N("500")),
		c("Comparators/eq-false", ccf, "Price = :p", ":p", N("501")),
		c("Comparators/ne", ccf, "Price <> :p", ":p", N("500")),
		c("Comparators/lt", "", "Price < :p", ":p", N("600")),
		c("Comparators/le", "", "Price <= :p", ":p", N("500")),
		c("Comparators/gt-false", ccf, "Price > :p", ":p", N("500")),
		c("Comparators/ge", "", "Price >= :p", ":p", N("500")),
		c("Comparators/between", "", "Price BETWEEN :lo AND :hi", ":lo", N("400"), ":hi", N("600")),
		c("Comparators/between-inclusive", "", "Price BETWEEN :lo AND :hi", ":lo", N("500"), ":hi", N("500")),
		c("Comparators/between-outside", ccf, "Price BETWEEN :lo AND :hi", ":lo", N("501"), ":hi", N("600")),
		c("Comparators/in", "", "ProductCategory IN (:a, :b)", ":a", S("Book"), ":b", S("Bicycle")),
		c("Comparators/in-none", ccf, "ProductCategory IN (:a, :b)", ":a", S("Book"), ":b", S("Car")),
		c("Comparators/in-100-values", "", "Price IN ("+hundred+")", ":a", N("1"), ":p", N("500")),
		c("Comparators/in-101-values", vErr, "Price IN (:a, "+hundred+")", ":a", N("1"), ":p", N("500")),
		c("Comparators/number-respelled", "", "Price = :p", ":p", N("5.00E2")),
		c("Comparators/type-differs", ccf, "Price = :p", ":p", S("500")),
		c("Comparators/string-utf8-order", "", "Title < :t", ":t", S("a")),
		c("Comparators/binary-order", "", "Image > :b", ":b", B("abc")),
		c("Comparators/set-equal-any-order", "", "Color = :c", ":c", SS("Black", "Red")),
		c("Comparators/list-equal", "", "RelatedItems = :l", ":l", L(N("341"), N("472"), N("649"))),
		c("Comparators/list-order-matters", ccf, "RelatedItems = :l", ":l", L(N("472"), N("341"), N("649"))),
		c("Comparators/map-equal", "", "ProductReviews.OneStar = :l", ":l", L(S("Terrible product! Do not buy this."))),
		c("Comparators/missing-attribute-eq", ccf, "Manufacturer = :m", ":m", S("x")),
		c("Comparators/bool", "", "InStock = :t", ":t", BOOL(true)),
		c("Comparators/null", "", "QuantityOnHand = :n", ":n", NULL()),
		c("Comparators/nested-list-element", "", "RelatedItems[1] = :r", ":r", N("472")),
		c("Comparators/nested-map-list", "", "ProductReviews.FiveStar[1] = :r", ":r", S("Do yourself a favor and buy this.")),
		// Functions.
		c("Functions/attribute_exists-nested", "", "attribute_exists(#p.#s)", "#p", "Pictures", "#s", "SideView"),
		c("Functions/attribute_exists-missing", ccf, "attribute_exists(Manufacturer)"),
		c("Functions/attribute_not_exists", "", "attribute_not_exists(Manufacturer)"),
		c("Functions/attribute_not_exists-present", ccf, "attribute_not_exists(Price)"),
		c("Functions/attribute_type-list", "", "attribute_type(ProductReviews.FiveStar, :t)", ":t", S("L")),
		c("Functions/attribute_type-ss", "", "attribute_type(Color, :t)", ":t", S("SS")),
		c("Functions/attribute_type-wrong", ccf, "attribute_type(Color, :t)", ":t", S("S")),
		c("Functions/attribute_type-null", "", "attribute_type(QuantityOnHand, :t)", ":t", S("NULL")),
		c("Functions/attribute_type-bool", "", "attribute_type(InStock, :t)", ":t", S("BOOL")),
		c("Functions/attribute_type-invalid", vErr, "attribute_type(Color, :t)", ":t", S("STRING")),
		c("Functions/begins_with", "", "begins_with(Pictures.FrontView, :v)", ":v", S("http://")),
		c("Functions/begins_with-false", ccf, "begins_with(Pictures.FrontView, :v)", ":v", S("https://")),
		c("Functions/contains-substring", "", "contains(Brand, :v)", ":v", S("Company")),
		c("Functions/contains-set-element", "", "contains(Color, :v)", ":v", S("Red")),
		c("Functions/contains-set-missing", ccf, "contains(Color, :v)", ":v", S("Green")),
		c("Functions/contains-list-element", "", "contains(RelatedItems, :v)", ":v", N("341")),
		c("Functions/contains-number-set", "", "contains(Scores, :v)", ":v", N("2.50")),
		c("Functions/size-string", "", "size(Brand) <= :v", ":v", N("20")),
		c("Functions/size-string-exact", "", "size(Brand) = :v", ":v", N("15")),
		c("Functions/size-set", "", "size(Color) = :v", ":v", N("2")),
		c("Functions/size-list", "", "size(ProductReviews.OneStar) > :v", ":v", N("0")),
		c("Functions/size-map", "", "size(Pictures) = :v", ":v", N("3")),
		c("Functions/size-binary", "", "size(Image) = :v", ":v", N("4")),
		c("Functions/size-missing", ccf, "size(Manufacturer) >= :v", ":v", N("0")),
		c("Functions/case-sensitive", vErr, "ATTRIBUTE_EXISTS(Price)"),
		c("Functions/size-compared-with-path", "", "size(Color) < Price"),
		// Logical evaluations, parentheses and precedence.
		c("LogicalEvaluations/and", "", "Price = :p AND InStock = :t", ":p", N("500"), ":t", BOOL(true)),
		c("LogicalEvaluations/and-false", ccf, "Price = :p AND InStock = :f", ":p", N("500"), ":f", BOOL(false)),
		c("LogicalEvaluations/or", "", "Price = :x OR InStock = :t", ":x", N("1"), ":t", BOOL(true)),
		c("LogicalEvaluations/not", ccf, "NOT attribute_exists(Price)"),
		c("Precedence/and-before-or", "", "Price = :x OR Price = :p AND InStock = :t", ":x", N("1"), ":p", N("500"), ":t", BOOL(true)),
		c("Precedence/not-before-and", ccf, "NOT Price = :x AND Price = :x", ":x", N("1")),
		c("Parentheses/override", ccf, "(Price = :x OR Price = :p) AND InStock = :f", ":x", N("1"), ":p", N("500"), ":f", BOOL(false)),
		c("Parentheses/redundant-refused", vErr, "((Price = :p))", ":p", N("500")),
		// Condition expressions on a missing item.
		docCase("ConditionExpressions/put-if-not-exists", st(ccf, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T(docCatalog)), Item: it("Id", N("123"), "Title", S("new")),
				ConditionExpression: str("attribute_not_exists(Id)")}
		}), st("", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T(docCatalog)), Item: it("Id", N("999"), "Title", S("new")),
				ConditionExpression: str("attribute_not_exists(Id)")}
		}), getProj("", "999", "")),
		docCase("ConditionExpressions/update-missing-item", updPC(ccf, "1000", "SET Price = :p", types.ReturnValueAllNew, ":p", N("1")).withCond("attribute_exists(Id)"),
			getProj("", "1000", "")),
		docCase("ConditionExpressions/delete-missing-item-condition", delIf(ccf, "1000", "Price > :p", ":p", N("0"))),
		docCase("ConditionExpressions/return-values-on-failure", st(ccf, func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T(docCatalog)), Key: it("Id", N("456")),
				ConditionExpression: str("Price > :p"), ExpressionAttributeValues: it(":p", N("100")),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}
		})),
		docCase("ConditionExpressions/update-conditional-price", updPC("", "123", "SET Price = Price - :d", types.ReturnValueUpdatedNew,
			":d", N("75"), ":limit", N("500")).withCond("Price <= :limit"), getProj("", "123", "Price")),
	}
	return cs
}

// withCond adds a ConditionExpression to an UpdateItem or DeleteItem step.
func (s step) withCond(cond string) step {
	req := s.req
	s.req = func(n namer) any {
		in := req(n)
		switch in := in.(type) {
		case *dynamodb.UpdateItemInput:
			in.ConditionExpression = str(cond)
		case *dynamodb.DeleteItemInput:
			in.ConditionExpression = str(cond)
		}
		return in
	}
	return s
}

// docUpdateCases: Expressions.UpdateExpressions and API_UpdateItem.
func docUpdateCases() []tcase {
	const p = "UpdateExpressions"
	u := func(name, want, expr string, rv types.ReturnValue, kv ...any) tcase {
		return docCase(p+"/"+name, updPC(want, "123", expr, rv, kv...), getProj("", "123", ""))
	}
	return []tcase{
		// SET.
		u("SET/add-attributes", "", "SET ProductCategory = :c, Price = :p", types.ReturnValueUpdatedNew,
			":c", S("Hardware"), ":p", N("60")),
		u("SET/new-list-and-map", "", "SET RelatedItems2 = :ri, ProductReviews2 = :pr", types.ReturnValueAllNew,
			":ri", L(S("Hammer")), ":pr", M("FiveStar", L(S("Best product ever!")))),
		u("SET/list-element", "", "SET RelatedItems[1] = :ri", types.ReturnValueAllNew, ":ri", S("Nails")),
		u("SET/list-element-past-end-appends", "", "SET RelatedItems[10] = :ri", types.ReturnValueAllNew, ":ri", S("Screwdriver")),
		u("SET/list-elements-past-end-in-order", "", "SET RelatedItems[12] = :b, RelatedItems[11] = :a", types.ReturnValueAllNew,
			":a", S("a"), ":b", S("b")),
		u("SET/nested-map-attribute", "", "SET #pr.#5star[1] = :r5, #pr.#3star = :r3", types.ReturnValueAllNew,
			"#pr", "ProductReviews", "#5star", "FiveStar", "#3star", "ThreeStar",
			":r5", S("Very happy with my purchase"), ":r3", L(S("Just OK - not that great"))),
		u("SET/nested-parent-missing", vErr, "SET Manufacturer.Name = :v", types.ReturnValueAllNew, ":v", S("x")),
		u("SET/list-index-on-non-list", vErr, "SET Title[0] = :v", types.ReturnValueAllNew, ":v", S("x")),
		u("SET/decrement", "", "SET Price = Price - :p", types.ReturnValueAllNew, ":p", N("15")),
		u("SET/increment", "", "SET Price = Price + :p", types.ReturnValueUpdatedOld, ":p", N("0.5")),
		u("SET/arithmetic-missing-attribute", vErr, "SET Price = Discount + :p", types.ReturnValueAllNew, ":p", N("1")),
		u("SET/arithmetic-on-string", vErr, "SET Price = Title + :p", types.ReturnValueAllNew, ":p", N("1")),
		u("SET/arithmetic-three-operands", vErr, "SET Price = Price + :p + :p", types.ReturnValueAllNew, ":p", N("1")),
		u("SET/list_append-end", "", "SET #ri = list_append(#ri, :vals)", types.ReturnValueAllNew,
			"#ri", "RelatedItems", ":vals", L(S("Screwdriver"), S("Hacksaw"))),
		u("SET/list_append-start", "", "SET #ri = list_append(:vals, #ri)", types.ReturnValueAllNew,
			"#ri", "RelatedItems", ":vals", L(S("Chisel"))),
		u("SET/list_append-not-list", vErr, "SET #ri = list_append(#ri, :v)", types.ReturnValueAllNew,
			"#ri", "RelatedItems", ":v", S("Chisel")),
		u("SET/list_append-case-sensitive", vErr, "SET #ri = LIST_APPEND(#ri, :v)", types.ReturnValueAllNew,
			"#ri", "RelatedItems", ":v", L(S("Chisel"))),
		u("SET/if_not_exists-present", "", "SET Price = if_not_exists(Price, :p)", types.ReturnValueUpdatedNew, ":p", N("100")),
		u("SET/if_not_exists-absent", "", "SET Discount = if_not_exists(Discount, :p)", types.ReturnValueUpdatedNew, ":p", N("10")),
		u("SET/if_not_exists-plus", "", "SET Visits = if_not_exists(Visits, :zero) + :one", types.ReturnValueUpdatedNew,
			":zero", N("0"), ":one", N("1")),
		u("SET/if_not_exists-in-condition", vErr, "SET Price = :p", types.ReturnValueAllNew, ":p", N("1")).
			withFirstCond("if_not_exists(Price, :p) = :p"),
		u("SET/empty-string", "", "SET Description = :e", types.ReturnValueUpdatedNew, ":e", S("")),
		u("SET/empty-set", vErr, "SET Color = :e", types.ReturnValueUpdatedNew, ":e", SS()),
		u("SET/path-copy", "", "SET FrontCopy = Pictures.FrontView", types.ReturnValueUpdatedNew),
		// REMOVE.
		u("REMOVE/attributes", "", "REMOVE Brand, InStock, QuantityOnHand", types.ReturnValueAllNew),
		u("REMOVE/list-elements-shift", "", "REMOVE RelatedItems[1], RelatedItems[2]", types.ReturnValueAllNew),
		u("REMOVE/missing-attribute", "", "REMOVE Manufacturer", types.ReturnValueUpdatedOld),
		u("REMOVE/list-index-past-end", "", "REMOVE RelatedItems[10]", types.ReturnValueUpdatedOld),
		u("REMOVE/nested-map-entry", "", "REMOVE Pictures.RearView", types.ReturnValueUpdatedOld),
		// ADD.
		u("ADD/number", "", "ADD Price :n", types.ReturnValueUpdatedNew, ":n", N("5")),
		u("ADD/number-negative", "", "ADD Price :n", types.ReturnValueUpdatedNew, ":n", N("-5")),
		u("ADD/number-missing-starts-at-zero", "", "ADD QuantitySold :n", types.ReturnValueUpdatedNew, ":n", N("3")),
		u("ADD/set-union", "", "ADD Color :c", types.ReturnValueUpdatedNew, ":c", SS("Orange", "Purple", "Red")),
		u("ADD/set-missing-created", "", "ADD Tags :t", types.ReturnValueUpdatedNew, ":t", SS("new")),
		u("ADD/set-wrong-type", vErr, "ADD Color :c", types.ReturnValueUpdatedNew, ":c", NS("1")),
		u("ADD/list-refused", vErr, "ADD RelatedItems :l", types.ReturnValueUpdatedNew, ":l", L(N("1"))),
		u("ADD/string-refused", vErr, "ADD Title :s", types.ReturnValueUpdatedNew, ":s", S("x")),
		u("ADD/number-to-string-refused", vErr, "ADD Title :n", types.ReturnValueUpdatedNew, ":n", N("1")),
		// DELETE.
		u("DELETE/set-elements", "", "DELETE Color :p", types.ReturnValueUpdatedNew, ":p", SS("Red", "Yellow")),
		u("DELETE/all-elements-removes-attribute", "", "DELETE Color :p", types.ReturnValueAllNew, ":p", SS("Red", "Black")),
		u("DELETE/missing-attribute", "", "DELETE Tags :p", types.ReturnValueUpdatedOld, ":p", SS("x")),
		u("DELETE/not-a-set", vErr, "DELETE Color :p", types.ReturnValueUpdatedNew, ":p", S("Red")),
		u("DELETE/type-mismatch", vErr, "DELETE Color :p", types.ReturnValueUpdatedNew, ":p", NS("1")),
		// Several clauses.
		u("Multiple/all-clauses", "", "SET Price = :p REMOVE InStock ADD QuantitySold :one DELETE Color :c",
			types.ReturnValueAllNew, ":p", N("450"), ":one", N("1"), ":c", SS("Red")),
		u("Multiple/clauses-any-order", "", "REMOVE InStock SET Price = :p", types.ReturnValueUpdatedNew, ":p", N("450")),
		u("Multiple/clause-twice", vErr, "SET Price = :p SET Title = :t", types.ReturnValueAllNew, ":p", N("1"), ":t", S("t")),
		u("Multiple/same-path-twice", vErr, "SET Price = :p REMOVE Price", types.ReturnValueAllNew, ":p", N("1")),
		u("Multiple/overlapping-paths", vErr, "SET Pictures = :m, Pictures.FrontView = :v", types.ReturnValueAllNew,
			":m", M(), ":v", S("x")),
		// API_UpdateItem.
		docCase("API_UpdateItem/creates-missing-item", updPC("", "1000", "SET Price = :p", types.ReturnValueAllNew, ":p", N("1")),
			getProj("", "1000", "")),
		docCase("API_UpdateItem/no-expression-creates-item", updPC("", "1001", "", types.ReturnValueAllNew), getProj("", "1001", "")),
		docCase("API_UpdateItem/key-attribute-refused", updPC(vErr, "123", "SET Id = :i", types.ReturnValueAllNew, ":i", N("9"))),
		docCase("API_UpdateItem/updated-old-new-attribute", updPC("", "123", "SET Fresh = :v", types.ReturnValueUpdatedOld, ":v", S("x"))),
		docCase("API_UpdateItem/all-old-missing-item", updPC("", "1000", "SET Fresh = :v", types.ReturnValueAllOld, ":v", S("x"))),
		docCase("API_UpdateItem/updated-new-nested", updPC("", "123", "SET Pictures.RearView = :v", types.ReturnValueUpdatedNew, ":v", S("x"))),
		docCase("API_UpdateItem/return-values-invalid", updPC(vErr, "123", "SET Fresh = :v", "ALL", ":v", S("x"))),
		docCase("DataTypes/number-overflow", updPC(vErr, "123", "SET Price = :a + :a", types.ReturnValueAllNew,
			":a", N("9.9999999999999999999999999999999999999E+125"))),
		docCase("DataTypes/number-subtract-precision", updPC("", "123", "SET Price = :a - :b", types.ReturnValueUpdatedNew,
			":a", N("1.0000000000000000000000000000000000001"), ":b", N("1"))),
	}
}

// withFirstCond adds a ConditionExpression to the first step after the
// fixture.
func (c tcase) withFirstCond(cond string) tcase {
	k := len(docCatalogFix())
	c.steps[k] = c.steps[k].withCond(cond)
	return c
}

// docProjectionCases: Expressions.ProjectionExpressions.
func docProjectionCases() []tcase {
	const p = "ProjectionExpressions"
	g := func(name, want, proj string, kv ...any) tcase {
		return docCase(p+"/"+name, getProj(want, "123", proj, kv...))
	}
	return []tcase{
		g("top-level", "", "Description, RelatedItems[0], ProductReviews.FiveStar"),
		g("missing-omitted", "", "Title, Manufacturer"),
		g("nothing-matches", "", "Manufacturer"),
		g("list-index-out-of-range", "", "RelatedItems[5]"),
		g("several-list-elements", "", "RelatedItems[2], RelatedItems[0]"),
		g("map-entry", "", "Pictures.SideView"),
		g("dotted-name-is-path", "", "Safety.Warning"),
		g("dotted-name-placeholder", "", "#sw", "#sw", "Safety.Warning"),
		g("reserved-word", vErr, "Comment"),
		g("reserved-word-placeholder", "", "#c", "#c", "Comment"),
		g("overlap", vErr, "Pictures, Pictures.SideView"),
		g("duplicate", vErr, "Title, Title"),
		docCase(p+"/value-placeholder-refused", st(vErr, func(n namer) any {
			return &dynamodb.QueryInput{TableName: str(n.T(docCatalog)), KeyConditionExpression: str("Id = :id"),
				ExpressionAttributeValues: it(":id", N("123"), ":v", S("Title")), ProjectionExpression: str(":v")}
		})),
		g("key-attribute", "", "Id"),
		docCase(p+"/query", st("", func(n namer) any {
			return &dynamodb.QueryInput{TableName: str(n.T(docCatalog)), KeyConditionExpression: str("Id = :id"),
				ExpressionAttributeValues: it(":id", N("123")), ProjectionExpression: str("Title, Color")}
		})),
		docCase(p+"/scan", st("", func(n namer) any {
			return &dynamodb.ScanInput{TableName: str(n.T(docCatalog)), ProjectionExpression: str("Price, #t"),
				ExpressionAttributeNames: names("#t", "Title")}
		})),
		docCase(p+"/batch-get", st("", func(n namer) any {
			return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{n.T(docCatalog): {
				Keys: []item{it("Id", N("123")), it("Id", N("456"))}, ProjectionExpression: str("Title")}}}
		})),
	}
}

// docNameCases: Expressions.ExpressionAttributeNames,
// Expressions.ExpressionAttributeValues and ReservedWords.
func docNameCases() []tcase {
	c := func(name, want, cond string, kv ...any) tcase {
		return docCase(name, delIf(want, "123", cond, kv...))
	}
	return []tcase{
		c("ReservedWords/comment", vErr, "attribute_exists(Comment)"),
		c("ReservedWords/case-insensitive", vErr, "attribute_exists(cOmMeNt)"),
		c("ReservedWords/name", vErr, "Title = :t AND attribute_exists(Name)", ":t", S("Bicycle 123")),
		c("ReservedWords/placeholder", "", "attribute_exists(#c)", "#c", "Comment"),
		c("AttributeNames/dot-is-path", ccf, "attribute_exists(Safety.Warning)"),
		c("AttributeNames/dot-placeholder", "", "attribute_exists(#sw)", "#sw", "Safety.Warning"),
		c("AttributeNames/repeating-placeholder", "", "#pr.#1star[0] = :o AND size(#pr.#1star) = :one",
			"#pr", "ProductReviews", "#1star", "OneStar", ":o", S("Terrible product! Do not buy this."), ":one", N("1")),
		c("AttributeNames/special-character", vErr, "attribute_exists(Safety-Warning)"),
		c("AttributeNames/leading-digit", vErr, "attribute_exists(1Price)"),
		c("AttributeNames/undefined", vErr, "attribute_exists(#x)"),
		c("AttributeNames/unused", vErr, "attribute_exists(Price)", "#x", "Price"),
		c("AttributeNames/placeholder-of-placeholder", ccf, "attribute_exists(#x)", "#x", "#y"),
		c("AttributeValues/undefined", vErr, "Price = :p"),
		c("AttributeValues/unused", vErr, "Price = :p", ":p", N("500"), ":q", N("1")),
		c("AttributeValues/as-path-refused", vErr, "attribute_exists(:p)", ":p", S("Price")),
		c("AttributeValues/literal-refused", vErr, "Price = 500"),
		c("AttributeValues/empty-set-refused", vErr, "Color = :c", ":c", SS()),
		c("AttributeValues/nested-name-in-value", "", "ProductReviews = :r", ":r", M("FiveStar",
			L(S("Excellent! Can't recommend it highly enough! Buy it!"), S("Do yourself a favor and buy this.")),
			"OneStar", L(S("Terrible product! Do not buy this.")))),
	}
}
