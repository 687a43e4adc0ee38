package dynamolocal_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// TestEmbeddedClientScope: the embedded engine's clients send no
// signature, only the credential scope; a signing client of one's own over
// the socket, with the same credentials, sees their tables, and another
// access key sees none of them.
func TestEmbeddedClientScope(t *testing.T) {
	ctx := context.Background()
	s := dynamolocal.NewEngine(t)
	var auth string
	c := s.NewClient(peekAuth(&auth))
	_, err := c.CreateTable(ctx, hashTableInput("scoped"))
	require.NoError(t, err)
	requireUnsigned(t, auth)

	signing := func(key string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{Region: dynamolocal.Region, BaseEndpoint: aws.String(s.Endpoint()), HTTPClient: http.DefaultClient,
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: key, SecretAccessKey: dynamolocal.SecretAccessKey}, nil
			})})
	}
	out, err := signing(dynamolocal.AccessKeyID).ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	require.Equal(t, []string{"scoped"}, out.TableNames)
	out, err = signing("other").ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	require.Empty(t, out.TableNames)
	// And the other way: another key given to NewClient is its scope.
	out, err = s.NewClient(func(o *dynamodb.Options) {
		o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "other", SecretAccessKey: "x"}, nil
		})
	}).ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	require.Empty(t, out.TableNames)
}

// peekAuth is a client option that keeps the Authorization header of the
// request last sent in auth.
func peekAuth(auth *string) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Finalize.Add(middleware.FinalizeMiddlewareFunc("peek", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				*auth = in.Request.(*smithyhttp.Request).Header.Get("Authorization")
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
		})
	}
}

// requireUnsigned wants auth to be the credential scope of the clients'
// key and region, with no signature.
func requireUnsigned(t *testing.T, auth string) {
	t.Helper()
	require.Contains(t, auth, "Credential="+dynamolocal.AccessKeyID+"/")
	require.Contains(t, auth, "/"+dynamolocal.Region+"/dynamodb/aws4_request")
	require.True(t, strings.HasSuffix(auth, "Signature=unsigned"), auth)
}

// TestSimClientUnsigned: a simulation's clients are in memory too, and as
// unsigned as the others.
func TestSimClientUnsigned(t *testing.T) {
	var auth string
	dynamolocal.Simulate(t, 1, func(s *dynamolocal.Sim) {
		s.Go("a", func(ctx context.Context, c *dynamodb.Client) {
			_, err := c.CreateTable(ctx, hashTableInput("unsigned"), peekAuth(&auth))
			if err != nil {
				t.Error(err)
			}
		})
	})
	requireUnsigned(t, auth)
}

// TestEmbeddedClientBaseEndpoint: a BaseEndpoint given to NewClient is
// where the requests go, the fixed endpoint notwithstanding.
func TestEmbeddedClientBaseEndpoint(t *testing.T) {
	s := dynamolocal.NewEngine(t)
	var got string
	c := s.NewClient(func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String("http://elsewhere.invalid:1234")
		o.Retryer = aws.NopRetryer{}
		o.HTTPClient = doer(func(r *http.Request) (*http.Response, error) {
			got = r.URL.Host
			return s.Transport().RoundTrip(r)
		})
	})
	_, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	require.Equal(t, "elsewhere.invalid:1234", got)
}

type doer func(*http.Request) (*http.Response, error)

func (d doer) Do(r *http.Request) (*http.Response, error) { return d(r) }

func hashTableInput(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		BillingMode:          types.BillingModePayPerRequest,
	}
}
