package ddbtest

import (
	"context"
	"net"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// TestFaultTransportFaults: each fault does what its doc says, against
// DynamoDB Local, with the SDK's retries off so each PutItem is one request.
func TestFaultTransportFaults(t *testing.T) {
	srv := dynamolocal.New(t)
	raw := srv.Client()
	table := CreateTable(t, raw, "pk", types.ScalarAttributeTypeS, "", "")
	ctx := context.Background()
	put := func(c *dynamodb.Client, pk string) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item(pk, "v")})
		return err
	}
	for _, tc := range []struct {
		fault   dynamolocal.Fault
		set     func(*dynamolocal.FaultTransport)
		applied bool
		check   func(t *testing.T, err error)
	}{
		{dynamolocal.FaultNone, func(*dynamolocal.FaultTransport) {}, true, func(t *testing.T, err error) { require.NoError(t, err) }},
		{dynamolocal.FaultLostResponse, func(f *dynamolocal.FaultTransport) { f.LoseResponse = 1 }, true, func(t *testing.T, err error) {
			var op *net.OpError
			require.ErrorAs(t, err, &op)
			assert.Equal(t, "read", op.Op)
		}},
		{dynamolocal.FaultRefused, func(f *dynamolocal.FaultTransport) { f.Refuse = 1 }, false, func(t *testing.T, err error) {
			var op *net.OpError
			require.ErrorAs(t, err, &op)
			assert.Equal(t, "dial", op.Op)
		}},
		{dynamolocal.FaultThrottled, func(f *dynamolocal.FaultTransport) { f.Throttle = 1 }, false, func(t *testing.T, err error) {
			var pt *types.ProvisionedThroughputExceededException
			require.ErrorAs(t, err, &pt, "the SDK parses the injected answer")
			var re *smithyhttp.ResponseError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, 400, re.HTTPStatusCode())
		}},
		{dynamolocal.FaultServerError, func(f *dynamolocal.FaultTransport) { f.ServerError = 1 }, false, func(t *testing.T, err error) {
			var ae smithy.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "InternalServerError", ae.ErrorCode())
			var re *smithyhttp.ResponseError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, 500, re.HTTPStatusCode())
		}},
		{dynamolocal.FaultDelayed, func(f *dynamolocal.FaultTransport) { f.Delay = 1 }, true, func(t *testing.T, err error) { require.NoError(t, err) }},
	} {
		t.Run(tc.fault.String(), func(t *testing.T) {
			ft := &dynamolocal.FaultTransport{Seed: 1}
			tc.set(ft)
			c := srv.NewClient(ft.Option(), func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
			pk := "k-" + tc.fault.String()
			tc.check(t, put(c, pk))
			assert.Equal(t, 1, ft.Count(tc.fault))
			assert.Equal(t, tc.applied, getItem(t, raw, table, pk) != nil, "applied")
		})
	}

	t.Run("partition", func(t *testing.T) {
		ft := &dynamolocal.FaultTransport{Seed: 1}
		c := srv.NewClient(ft.Option(), func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
		ft.Partition(true)
		require.Error(t, put(c, "p1"))
		assert.Nil(t, getItem(t, raw, table, "p1"))
		ft.Partition(false)
		require.NoError(t, put(c, "p2"))
		assert.Equal(t, 1, ft.Count(dynamolocal.FaultPartitioned))
		assert.Equal(t, 1, ft.Count(dynamolocal.FaultNone))
	})

	t.Run("only the listed operations", func(t *testing.T) {
		ft := &dynamolocal.FaultTransport{Seed: 1, Refuse: 1, Ops: []string{"DeleteItem"}}
		c := srv.NewClient(ft.Option(), func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
		require.NoError(t, put(c, "o1"))
		_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key("o1")})
		require.Error(t, err)
		assert.NotNil(t, getItem(t, raw, table, "o1"))
	})
}
