package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// The tagging operations are held here rather than by the differential
// suite: DynamoDB Local does not support them. Their wording is DynamoDB's.

// unchecked turns off the SDK's own check of required members, so that
// the engine answers a tag without a key or a value.
func unchecked(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		_, err := s.Initialize.Remove("OperationInputValidation")
		return err
	})
}

func tag(k, v string) types.Tag { return types.Tag{Key: aws.String(k), Value: aws.String(v)} }

// tableARN creates a table and returns its ARN as DescribeTable gives it.
func tableARN(t *testing.T, c *dynamodb.Client, name string) string {
	t.Helper()
	hashTable(t, c, name)
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	return *out.Table.TableArn
}

func listTags(t *testing.T, c *dynamodb.Client, arn string) []types.Tag {
	t.Helper()
	out, err := c.ListTagsOfResource(context.Background(), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	require.NoError(t, err)
	assert.Nil(t, out.NextToken)
	return out.Tags
}

// apiError asserts err is the API error code with message msg.
func apiError(t *testing.T, err error, code, msg string) {
	t.Helper()
	var api smithy.APIError
	require.True(t, errors.As(err, &api), "want %s, got %v", code, err)
	assert.Equal(t, code, api.ErrorCode())
	assert.Equal(t, msg, api.ErrorMessage())
}

func TestTagging(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	arn := tableARN(t, c, "tagged")
	assert.Empty(t, listTags(t, c, arn))

	_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{tag("b", "2"), tag("a", "1"), tag("c", "")}})
	require.NoError(t, err)
	assert.Equal(t, []types.Tag{tag("a", "1"), tag("b", "2"), tag("c", "")}, listTags(t, c, arn))

	// An existing key takes the new value.
	_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{tag("a", "one")}})
	require.NoError(t, err)
	_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"b", "absent"}})
	require.NoError(t, err)
	assert.Equal(t, []types.Tag{tag("a", "one"), tag("c", "")}, listTags(t, c, arn))

	// A NextToken resumes after the key it holds.
	out, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn), NextToken: aws.String("a")})
	require.NoError(t, err)
	assert.Equal(t, []types.Tag{tag("c", "")}, out.Tags)

	// A table deleted and created again has no tags.
	_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tagged")})
	require.NoError(t, err)
	_, err = c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	apiError(t, err, "ResourceNotFoundException", "Requested resource not found: ResourcArn: "+arn+" not found")
	assert.Equal(t, arn, tableARN(t, c, "tagged"))
	assert.Empty(t, listTags(t, c, arn))
}

func TestTagValidation(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	arn := tableARN(t, c, "tagged")
	_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{tag("keep", "v")}})
	require.NoError(t, err)
	missing := strings.Replace(arn, "table/tagged", "table/nope", 1)
	for _, tc := range []struct {
		name string
		arn  string
		tags []types.Tag
		code string
		msg  string
	}{
		{name: "key 128", arn: arn, tags: []types.Tag{tag(strings.Repeat("k", 128), "v")}},
		{name: "value 256", arn: arn, tags: []types.Tag{tag("v256", strings.Repeat("v", 256))}},
		{name: "letters of any script, spaces, + - = . _ : / @", arn: arn, tags: []types.Tag{tag("ключ 表", "a+b-c=d.e_f:g/h@i")}},
		{name: "key 129", arn: arn, tags: []types.Tag{tag("ok", "v"), tag(strings.Repeat("k", 129), "v")},
			code: "ValidationException", msg: "The Tag Key provided is invalid, Key: " + strings.Repeat("k", 129)},
		{name: "empty key", arn: arn, tags: []types.Tag{tag("", "v")}, code: "ValidationException", msg: "The Tag Key provided is invalid, Key: "},
		{name: "no key", arn: arn, tags: []types.Tag{{Value: aws.String("v")}}, code: "ValidationException", msg: "The Tag Key provided is invalid, Key: null"},
		{name: "no value", arn: arn, tags: []types.Tag{{Key: aws.String("k")}}, code: "ValidationException", msg: "The Tag Value provided is invalid, Value: null"},
		{name: "value 257", arn: arn, tags: []types.Tag{tag("k", strings.Repeat("v", 257))},
			code: "ValidationException", msg: "The Tag Value provided is invalid, Value: " + strings.Repeat("v", 257)},
		{name: "bad character in key", arn: arn, tags: []types.Tag{tag("a,b", "v")}, code: "ValidationException", msg: "The Tag Key provided is invalid, Key: a,b"},
		{name: "bad character in value", arn: arn, tags: []types.Tag{tag("k", "100%")}, code: "ValidationException", msg: "The Tag Value provided is invalid, Value: 100%"},
		{name: "aws: prefix", arn: arn, tags: []types.Tag{tag("ok", "v"), tag("aws:zzz", "v")}, code: "ValidationException", msg: "Tag Key cannot be prefixed with aws:, Key: aws:zzz"},
		{name: "duplicate keys", arn: arn, tags: []types.Tag{tag("dup", "1"), tag("dup", "2")},
			code: "ValidationException", msg: "Duplicate Tag Keys provided as input: Duplicate Tag Key found dup"},
		{name: "no tags", arn: arn, tags: []types.Tag{}, code: "ValidationException", msg: "Atleast one Tag needs to be provided as Input."},
		{name: "not an ARN", arn: "tagged", tags: []types.Tag{tag("k", "v")},
			code: "ValidationException", msg: "Invalid TableArn: Invalid ResourceArn provided as input tagged"},
		{name: "bad table name", arn: strings.Replace(arn, "table/tagged", "table/ab", 1), tags: []types.Tag{tag("k", "v")},
			code: "ValidationException", msg: "Invalid TableArn: Invalid ResourceArn provided as input " + strings.Replace(arn, "table/tagged", "table/ab", 1)},
		{name: "missing table", arn: missing, tags: []types.Tag{tag("k", "v")},
			code: "ResourceNotFoundException", msg: "Requested resource not found: ResourcArn: " + missing + " not found"},
		{name: "missing table, bad tag first", arn: missing, tags: []types.Tag{tag("", "v")}, code: "ValidationException", msg: "The Tag Key provided is invalid, Key: "},
		{name: "other region", arn: strings.Replace(arn, ":ddblocal:", ":eu-west-1:", 1), tags: []types.Tag{tag("k", "v")},
			code: "ResourceNotFoundException", msg: "Requested resource not found: ResourcArn: " + strings.Replace(arn, ":ddblocal:", ":eu-west-1:", 1) + " not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := listTags(t, c, arn)
			_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(tc.arn), Tags: tc.tags}, unchecked)
			if tc.code == "" {
				require.NoError(t, err)
				return
			}
			apiError(t, err, tc.code, tc.msg)
			// A refused request applies none of its tags.
			assert.Equal(t, before, listTags(t, c, arn))
		})
	}
}

func TestTagLimit(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	arn := tableARN(t, c, "tagged")
	var tags []types.Tag
	for i := range 50 {
		tags = append(tags, tag(fmt.Sprintf("k%02d", i), "v"))
	}
	const tooMany = "Number of Tags exceed the current limit for the provided ResourceArn"
	_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: append(tags, tag("k50", "v"))})
	apiError(t, err, "ValidationException", tooMany)
	_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tags})
	require.NoError(t, err)
	assert.Len(t, listTags(t, c, arn), 50)
	// The limit holds after the merge: new values for existing keys are
	// fine, one key more is not.
	_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{tag("k00", "new")}})
	require.NoError(t, err)
	_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{tag("k01", "new"), tag("k50", "v")}})
	apiError(t, err, "ValidationException", tooMany)
	assert.Equal(t, tag("k01", "v"), listTags(t, c, arn)[1])

	var keys []string
	for i := range 51 {
		keys = append(keys, fmt.Sprintf("k%02d", i))
	}
	_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: keys})
	apiError(t, err, "ValidationException", tooMany)
	_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: keys[:50]})
	require.NoError(t, err)
	assert.Empty(t, listTags(t, c, arn))
}

func TestUntagValidation(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	arn := tableARN(t, c, "tagged")
	missing := strings.Replace(arn, "table/tagged", "table/nope", 1)
	for _, tc := range []struct {
		name, arn string
		keys      []string
		code, msg string
	}{
		{"no keys", arn, []string{}, "ValidationException", "Atleast one Tag Key needs to be provided as Input."},
		{"empty key", arn, []string{""}, "ValidationException", "The Tag Key provided is invalid, Key: "},
		{"key 129", arn, []string{strings.Repeat("k", 129)}, "ValidationException", "The Tag Key provided is invalid, Key: " + strings.Repeat("k", 129)},
		{"not an ARN", "x", []string{"k"}, "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input x"},
		{"missing table", missing, []string{"k"}, "ResourceNotFoundException", "Requested resource not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(tc.arn), TagKeys: tc.keys})
			apiError(t, err, tc.code, tc.msg)
		})
	}
	_, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String("x")})
	apiError(t, err, "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input x")
}

func TestCreateTableTags(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	in := func(name string, tags ...types.Tag) *dynamodb.CreateTableInput {
		return &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			BillingMode:          types.BillingModePayPerRequest,
			Tags:                 tags,
		}
	}
	out, err := c.CreateTable(ctx, in("tagged", tag("team", "core"), tag("env", "test")))
	require.NoError(t, err)
	assert.Equal(t, []types.Tag{tag("env", "test"), tag("team", "core")}, listTags(t, c, *out.TableDescription.TableArn))

	_, err = c.CreateTable(ctx, in("refused", tag("aws:x", "v")))
	apiError(t, err, "ValidationException", "Tag Key cannot be prefixed with aws:, Key: aws:x")
	var tags []types.Tag
	for i := range 51 {
		tags = append(tags, tag(fmt.Sprintf("k%02d", i), "v"))
	}
	_, err = c.CreateTable(ctx, in("refused", tags...))
	apiError(t, err, "ValidationException", "Number of Tags exceed the current limit for the provided ResourceArn")
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("refused")})
	var nf *types.ResourceNotFoundException
	require.ErrorAs(t, err, &nf)
}
