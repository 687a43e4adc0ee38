package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// TestUpdateChecksBeforeCondition checks the order DynamoDB Local 1.25.1
// checks an UpdateItem in (answers measured there): the update expression
// against the request (overlapping paths, operand types, placeholders)
// before the ConditionExpression is parsed or evaluated, and the update of
// a key attribute only after the condition.
func TestUpdateChecksBeforeCondition(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	hashTable(t, c, "items")
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "a"}, "a": &types.AttributeValueMemberN{Value: "1"},
	}})
	require.NoError(t, err)
	n := func(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }
	s := func(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
	cases := []struct {
		update, condition string
		values            map[string]types.AttributeValue
		code, msg         string
	}{
		{"SET a = :v ADD a :v", "a = :w", map[string]types.AttributeValue{":v": n("1"), ":w": n("5")},
			"ValidationException", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"SET a = :v ADD a :v", "a = = :w", map[string]types.AttributeValue{":v": n("1"), ":w": n("5")},
			"ValidationException", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"SET a = :v ADD a :v", "a = :zz", map[string]types.AttributeValue{":v": n("1"), ":w": n("5")},
			"ValidationException", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"SET a = a + :s", "a = :w", map[string]types.AttributeValue{":s": s("1"), ":w": n("5")},
			"ValidationException", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"SET a = :zz", "a = = :w", map[string]types.AttributeValue{":v": n("1"), ":w": n("5")},
			"ValidationException", "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :zz"},
		{"SET a = list_append(:v, :l)", "attribute_exists(zz)", map[string]types.AttributeValue{":v": n("1"), ":l": &types.AttributeValueMemberL{}},
			"ValidationException", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: N"},
		{"ADD a :v", "attribute_exists(zz)", map[string]types.AttributeValue{":v": s("1")},
			"ValidationException", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"SET q.p = :v", "attribute_exists(zz)", map[string]types.AttributeValue{":v": n("1")},
			"ConditionalCheckFailedException", "The conditional request failed"},
		{"SET pk = :v", "a = :w", map[string]types.AttributeValue{":v": s("1"), ":w": n("5")},
			"ConditionalCheckFailedException", "The conditional request failed"},
		{"SET pk = :v", "a = = :w", map[string]types.AttributeValue{":v": s("1"), ":w": n("5")},
			"ValidationException", `Invalid ConditionExpression: Syntax error; token: "=", near: "= = :w"`},
		{"SET pk = :v", "a = :w", map[string]types.AttributeValue{":v": s("1"), ":w": n("1")},
			"ValidationException", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
	}
	for _, tc := range cases {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("items"), Key: key,
			UpdateExpression: aws.String(tc.update), ConditionExpression: aws.String(tc.condition),
			ExpressionAttributeValues: tc.values})
		var api smithy.APIError
		require.True(t, errors.As(err, &api), "%s IF %s: %v", tc.update, tc.condition, err)
		assert.Equal(t, tc.code, api.ErrorCode(), "%s IF %s", tc.update, tc.condition)
		assert.Equal(t, tc.msg, api.ErrorMessage(), "%s IF %s", tc.update, tc.condition)
	}
}

// TestPlaceholderKeys checks the syntax of the keys of
// ExpressionAttributeNames and ExpressionAttributeValues, which DynamoDB
// Local checks (names first) before it reads any expression.
func TestPlaceholderKeys(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	hashTable(t, c, "items")
	n1 := &types.AttributeValueMemberN{Value: "1"}
	cases := []struct {
		condition string
		names     map[string]string
		values    map[string]types.AttributeValue
		msg       string
	}{
		{"a = :a-b", nil, map[string]types.AttributeValue{":a-b": n1},
			`ExpressionAttributeValues contains invalid key: Syntax error; key: ":a-b"`},
		{"a = = :a", nil, map[string]types.AttributeValue{":a": n1, ":a-b": n1},
			`ExpressionAttributeValues contains invalid key: Syntax error; key: ":a-b"`},
		{"a = :a", nil, map[string]types.AttributeValue{":a": n1, "a": n1},
			`ExpressionAttributeValues contains invalid key: Syntax error; key: "a"`},
		{"a = :a", nil, map[string]types.AttributeValue{":a": n1, ":": n1},
			`ExpressionAttributeValues contains invalid key: Syntax error; key: ":"`},
		{"a = :a", nil, map[string]types.AttributeValue{":a": n1, ":_é": n1},
			`ExpressionAttributeValues contains invalid key: Syntax error; key: ":_é"`},
		{"a = :a", nil, map[string]types.AttributeValue{":a": n1, ":_A9": n1},
			"Value provided in ExpressionAttributeValues unused in expressions: keys: {:_A9}"},
		{"#a = :a", map[string]string{"#a-b": "x", "#a": "a"}, map[string]types.AttributeValue{":a": n1, ":a-b": n1},
			`ExpressionAttributeNames contains invalid key: Syntax error; key: "#a-b"`},
		{"#a = :a", map[string]string{"#a": "a", "#é": "b"}, map[string]types.AttributeValue{":a": n1},
			`ExpressionAttributeNames contains invalid key: Syntax error; key: "#é"`},
		{"#a = :a", map[string]string{"#a-": "a"}, map[string]types.AttributeValue{},
			`ExpressionAttributeNames contains invalid key: Syntax error; key: "#a-"`},
		{"#a = :a", map[string]string{}, map[string]types.AttributeValue{":a": n1, ":a-": n1},
			"ExpressionAttributeNames must not be empty"},
		{"#a = :a", map[string]string{"#a": "a"}, map[string]types.AttributeValue{":a": &types.AttributeValueMemberSS{}, ":a-b": n1},
			`ExpressionAttributeValues contains invalid key: Syntax error; key: ":a-b"`},
	}
	for _, tc := range cases {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"),
			Item:                map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "zz"}},
			ConditionExpression: aws.String(tc.condition), ExpressionAttributeNames: tc.names, ExpressionAttributeValues: tc.values})
		var api smithy.APIError
		require.True(t, errors.As(err, &api), "%s: %v", tc.condition, err)
		assert.Equal(t, "ValidationException", api.ErrorCode(), tc.condition)
		assert.Equal(t, tc.msg, api.ErrorMessage(), tc.condition)
	}
}

// TestInvalidExpressionValues checks DynamoDB Local's messages for an
// invalid value of ExpressionAttributeValues: the value's own message,
// prefix included, then the key.
func TestInvalidExpressionValues(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	hashTable(t, c, "items")
	cases := []struct {
		value types.AttributeValue
		msg   string
	}{
		{&types.AttributeValueMemberSS{}, "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :e"},
		{&types.AttributeValueMemberSS{Value: []string{"a", "a"}}, "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: Input collection [a, a] contains duplicates for key :e"},
		{&types.AttributeValueMemberNULL{Value: false}, "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: Null attribute value types must have the value of true for key :e"},
		{&types.AttributeValueMemberNS{}, "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An number set  may not be empty for key :e"},
		{&types.AttributeValueMemberNS{Value: []string{"1", "1.0"}}, "ExpressionAttributeValues contains invalid value: Input collection contains duplicates for key :e"},
		{&types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberSS{}}}, "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :e"},
	}
	for _, tc := range cases {
		_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("items"), FilterExpression: aws.String("a = :e"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":e": tc.value}})
		var api smithy.APIError
		require.True(t, errors.As(err, &api), "%v", err)
		assert.Equal(t, tc.msg, api.ErrorMessage())
	}
}

// TestPlaceholdersWithoutExpressions checks DynamoDB Local's messages for
// ExpressionAttributeNames or ExpressionAttributeValues without any
// expression to use them.
func TestPlaceholdersWithoutExpressions(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	hashTable(t, c, "items")
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	values := map[string]types.AttributeValue{":a": &types.AttributeValueMemberS{Value: "a"}}
	names := map[string]string{"#a": "a"}
	msg := func(err error) string {
		var api smithy.APIError
		require.True(t, errors.As(err, &api), "%v", err)
		return api.ErrorMessage()
	}
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"), Item: key, ExpressionAttributeValues: values})
	assert.Equal(t, "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null", msg(err))
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"), Item: key, ExpressionAttributeValues: values, ExpressionAttributeNames: names})
	assert.Equal(t, "ExpressionAttributeNames can only be specified when using expressions", msg(err))
	_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("items"), Key: key, ExpressionAttributeValues: values})
	assert.Equal(t, "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null", msg(err))
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("items"), Key: key, ExpressionAttributeValues: values})
	assert.Equal(t, "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null", msg(err))
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("items"), Key: key, ExpressionAttributeNames: names})
	assert.Equal(t, "ExpressionAttributeNames can only be specified when using expressions", msg(err))
}
