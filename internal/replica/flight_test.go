package replica_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/replica"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// hung is a client whose DescribeTable never answers until released.
type hung struct {
	*dynamodb.Client
	release chan struct{}
}

func (h *hung) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	<-h.release
	return h.Client.DescribeTable(ctx, in, o...)
}

// TestGuardOtherClientNotHeld: a first Check whose client never answers
// holds up the Checks of that client alone; another client's Check makes
// its own DescribeTable and passes (in a simulation, the hung client is
// one that crashed).
func TestGuardOtherClientNotHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		raw := dynamolocal.NewEngine(t, dynamolocal.WithoutListener()).Client()
		table := ddbtest.CreateTable(t, raw, "pk", types.ScalarAttributeTypeS, "", "")
		g := replica.NewGuard(table, "")
		h := &hung{Client: raw, release: make(chan struct{})}
		done := make(chan error, 2)
		for range 2 {
			go func() { done <- g.Check(ctx, h) }()
		}
		synctest.Wait() // both wait on h's one DescribeTable
		cc := &counting{Client: raw}
		require.NoError(t, g.Check(ctx, cc)) // a deadlock here fails the bubble
		assert.EqualValues(t, 1, cc.n.Load())
		select {
		case err := <-done:
			t.Fatalf("a Check of the hung client returned (%v) before its DescribeTable did", err)
		default:
		}
		close(h.release)
		require.NoError(t, <-done)
		require.NoError(t, <-done)
	})
}
