package ddbtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/tabledef"
)

// maxNameStem bounds the part of a table name taken from the test name; the
// suffix adds at most 30 bytes and DynamoDB allows 255.
const maxNameStem = 200

var tableSeq atomic.Int64

// TableName returns a table name unique to this call: the test's name with
// every character outside [a-zA-Z0-9_.-] replaced by '_', cut to 200 bytes,
// then a counter of the process and a random part, so that test binaries
// sharing one server (DYNAMODB_ENDPOINT) do not collide either.
func TableName(t testing.TB) string {
	t.Helper()
	stem := strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '_', r == '.', r == '-':
			return r
		}
		return '_'
	}, t.Name())
	if len(stem) > maxNameStem {
		stem = stem[:maxNameStem] // only ASCII is left, so bytes are runes
	}
	return fmt.Sprintf("%s-%d-%08x", stem, tableSeq.Add(1), rand.Uint32())
}

// opTimeout bounds each control-plane call the helpers make.
const opTimeout = 30 * time.Second

// CreateTable creates an on-demand (PAY_PER_REQUEST) table named by
// [TableName] with the given key schema (rangeKey "" for none), waits until it
// is ACTIVE, and registers t.Cleanup to delete it. It returns the name. It
// goes through the same code as mapper.CreateTable (package tabledef; this
// package cannot import mapper, whose internal tests may import it), for
// tables that no struct describes. Failures end the test with t.Fatalf.
func CreateTable(t testing.TB, c *dynamodb.Client, hashKey string, hashType types.ScalarAttributeType,
	rangeKey string, rangeType types.ScalarAttributeType) string {
	t.Helper()
	name := TableName(t)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	diffs, err := tabledef.Create(ctx, c, &tabledef.Def{
		Name:  name,
		Hash:  tabledef.Key{Name: hashKey, Type: hashType},
		Range: tabledef.Key{Name: rangeKey, Type: rangeType},
		Wait:  opTimeout,
	})
	if err != nil || len(diffs) > 0 {
		t.Fatalf("ddbtest: create table %s: %v %v", name, err, diffs)
	}
	DeleteAtCleanup(t, c, name)
	return name
}

// DeleteAtCleanup registers t.Cleanup to delete the table name, for tables
// a test creates itself (with mapper.CreateTable, say). A table already
// deleted is not an error.
func DeleteAtCleanup(t testing.TB, c *dynamodb.Client, name string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		_, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		var notFound *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &notFound) { // a test may delete its table itself
			t.Errorf("ddbtest: delete table %s: %v", name, err)
		}
	})
}

// MakeGlobal gives table replicas in regions, with the consistency mode
// given ("" for DynamoDB's default, EVENTUAL), as UpdateTable's
// ReplicaUpdates do on DynamoDB. The embedded engine keeps them and
// describes them; DynamoDB Local has none (it answers "Nothing to
// update", and the test fails here).
func MakeGlobal(t testing.TB, c *dynamodb.Client, table string, consistency types.MultiRegionConsistency, regions ...string) {
	t.Helper()
	var ups []types.ReplicationGroupUpdate
	for _, r := range regions {
		ups = append(ups, types.ReplicationGroupUpdate{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(r)}})
	}
	_, err := c.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(table), ReplicaUpdates: ups, MultiRegionConsistency: consistency})
	if err != nil {
		t.Fatalf("ddbtest: MakeGlobal %s: %v", table, err)
	}
}

// EnvLong is the environment variable that makes the heavy tests run
// their full counts (make test-long sets it): more crash points, larger
// units, more pages over the wire. Without it they run a smaller count
// that still exercises every path, so that the suite stays quick.
const EnvLong = "OPTIMIST_LONG"

// Long reports whether the heavy tests run their full counts (EnvLong is
// set).
func Long() bool { return os.Getenv(EnvLong) != "" }
