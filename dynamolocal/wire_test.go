package dynamolocal

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

var (
	wireRequests  = flag.Int("wire.requests", wirePages(), "Query pages TestNoAnswerLostOnTheWire reads (default 500, 5000 with OPTIMIST_LONG set)")
	wireSDKClient = flag.Bool("wire.sdkclient", false, "TestNoAnswerLostOnTheWire reads with the SDK's own HTTP client instead of NewClient's (to measure the race NewClient's avoids)")
	wireEndpoint  = flag.String("wire.endpoint", "", "server TestNoAnswerLostOnTheWire reads from (default: cmd/dynamolocal, built and started in another process)")
)

// wirePages is how many pages TestNoAnswerLostOnTheWire reads by default:
// 500 in the suite, 5,000 with OPTIMIST_LONG set (make test-long; the
// variable of internal/ddbtest, which this package's tests cannot import).
// The race it guards against is rare: the long run is the one with a fair
// chance to meet it.
func wirePages() int {
	if os.Getenv("OPTIMIST_LONG") != "" {
		return 5000
	}
	return 500
}

// TestNoAnswerLostOnTheWire reads Query pages of 100 items from the engine
// in another process (cmd/dynamolocal on a loopback port), with 8 clients
// and the SDK's retries off, so that every answer the client fails to read
// is counted instead of retried. None may fail. It runs on the wall clock
// over a real socket: what it tests is the transport, not the library's
// timing.
func TestNoAnswerLostOnTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts cmd/dynamolocal; not in -short")
	}
	endpoint := *wireEndpoint
	if endpoint == "" {
		endpoint = startCommand(t)
	}
	ctx := context.Background()
	srv, err := Attach(ctx, endpoint)
	require.NoError(t, err)
	client := srv.NewClient(func(o *dynamodb.Options) {
		o.Retryer = aws.NopRetryer{}
		if *wireSDKClient {
			o.HTTPClient = awshttp.NewBuildableClient()
		}
	})
	table := fmt.Sprintf("wire-%d", time.Now().UnixNano())
	_, err = client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   &table,
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
	})
	require.NoError(t, err)
	t.Cleanup(func() { client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &table}) })
	const items = 300
	for i := range items {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
			"pk":   &types.AttributeValueMemberS{Value: "p"},
			"sk":   &types.AttributeValueMemberN{Value: strconv.Itoa(i)},
			"data": &types.AttributeValueMemberS{Value: strings.Repeat("x", 200+i%100)},
		}})
		require.NoError(t, err)
	}

	const clients = 8
	var next, failed atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := next.Add(1); n <= int64(*wireRequests); n = next.Add(1) {
				start := strconv.Itoa(int(n) % (items - 100))
				out, err := client.Query(ctx, &dynamodb.QueryInput{
					TableName:              &table,
					KeyConditionExpression: aws.String("pk = :p AND sk > :s"),
					ExpressionAttributeValues: map[string]types.AttributeValue{
						":p": &types.AttributeValueMemberS{Value: "p"},
						":s": &types.AttributeValueMemberN{Value: start},
					},
					Limit: aws.Int32(100),
				})
				if err == nil && len(out.Items) != 100 {
					err = fmt.Errorf("%d items, want 100", len(out.Items))
				}
				if err != nil {
					failed.Add(1)
					mu.Lock()
					firstErr = errors.Join(firstErr, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d Query pages of 100 items, %d clients: %d failed", *wireRequests, clients, failed.Load())
	require.Zero(t, failed.Load(), "failed reads; first: %v", firstErr)
}

// startCommand builds cmd/dynamolocal, starts it on a free loopback port and
// returns its endpoint; the test's cleanup stops it.
func startCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dynamolocal")
	build := exec.Command("go", "build", "-o", bin, "../cmd/dynamolocal")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	cmd := exec.Command(bin, "-listen", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	buf := make([]byte, 4096)
	var got string
	for !strings.Contains(got, "\n") {
		n, err := stdout.Read(buf)
		require.NoError(t, err, "reading the endpoint from cmd/dynamolocal")
		got += string(buf[:n])
	}
	line, _, _ := strings.Cut(got, "\n")
	_, endpoint, ok := strings.Cut(line, "=")
	require.True(t, ok, "cmd/dynamolocal printed %q", line)
	return endpoint
}
