package mapper_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
)

// A nil option, a typed-nil observer or a typed-nil client is an error matching
// ErrInvalidOption, never a panic, and nothing is sent.
func TestNilOptionsAreRefusedNotPanics(t *testing.T) {
	calls := &ddbtest.CountingClient{}
	for name, opts := range map[string][]func(*mapper.TableOptions){
		"nil option":        {nil},
		"nil after a valid": {func(o *mapper.TableOptions) { o.MaxAttempts = 3 }, nil},
		"typed-nil Observer": {func(o *mapper.TableOptions) {
			var f observe.Func
			o.Observer = f
		}},
	} {
		t.Run(name, func(t *testing.T) {
			var table *mapper.Table[Counter]
			var err error
			require.NotPanics(t, func() { table, err = mapper.NewTable[Counter](calls, "t", opts...) })
			assert.ErrorIs(t, err, mapper.ErrInvalidOption)
			assert.Nil(t, table)
		})
	}
	var nilClient *dynamodb.Client
	require.NotPanics(t, func() {
		_, err := mapper.NewTable[Counter](nilClient, "t")
		assert.ErrorIs(t, err, mapper.ErrInvalidOption)
		err = mapper.CreateTable[Counter](context.Background(), nilClient, "t")
		assert.ErrorIs(t, err, mapper.ErrInvalidOption)
		err = mapper.CreateTable[Counter](context.Background(), &dynamodb.Client{}, "t", nil)
		assert.ErrorIs(t, err, mapper.ErrInvalidOption)
	})
	assert.Zero(t, calls.Total())
}

// Every call of a nil or zero Table is an error matching ErrInvalidOption,
// never a panic.
func TestNilTableCallsAreRefusedNotPanics(t *testing.T) {
	ctx := context.Background()
	key := expression.Key("id").Equal(expression.Value("a"))
	for name, table := range map[string]*mapper.Table[Counter]{"nil": nil, "zero": {}} {
		t.Run(name, func(t *testing.T) {
			require.NotPanics(t, func() {
				assert.ErrorIs(t, table.Check(ctx), mapper.ErrInvalidOption, "Check")
				_, err := table.One(ctx, key)
				assert.ErrorIs(t, err, mapper.ErrInvalidOption, "One")
				_, err = table.Count(ctx, key)
				assert.ErrorIs(t, err, mapper.ErrInvalidOption, "Count")
				_, err = table.ScanCount(ctx)
				assert.ErrorIs(t, err, mapper.ErrInvalidOption, "ScanCount")
			})
		})
	}
}

// NewTable makes no call; Check makes its one DescribeTable with the
// caller's context, so a canceled context stops it.
func TestNewTableSendsNothingCheckUsesCallersContext(t *testing.T) {
	srv := dynamolocal.New(t)
	calls := ddbtest.NewCounting(srv.Client())
	table, err := mapper.NewTable[Counter](calls, ddbtest.TableName(t))
	require.NoError(t, err)
	assert.Zero(t, calls.Total(), "NewTable sent a request")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = table.Check(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}
