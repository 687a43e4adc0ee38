// Package counters is the table of versioned counters that the mapper and
// txn tests share: a table on a server the test gives, a table of
// the caller's making (a mapper.Table) written through a call-counting
// client, and raw reads that bypass it. It does not import mapper: an
// internal package never imports the layers above it, so the caller passes
// the constructor of its table.
package counters

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

// Counter is the versioned item of the tests.
type Counter struct {
	ID      string `dynamo:"id,hash"`
	N       int    `dynamo:"n"`
	Status  string `dynamo:"status,omitempty"`
	Version int64  `dynamo:"version,version"`
}

// Fixture is a table of Counters on the test's server, written through a
// call-counting client; Tab is the type of the table (*mapper.Table[Counter]).
type Fixture[Tab any] struct {
	Ctx   context.Context
	Raw   *dynamodb.Client        // the server's client, not counted
	Calls *ddbtest.CountingClient // what Table sends through
	Table Tab
	Name  string // the table's name
	// Client makes another client of the same server (with its own
	// transport options, such as a fault transport).
	Client func(...func(*dynamodb.Options)) *dynamodb.Client
}

// Server is what a fixture needs of a server: its client and new clients
// of it. A *dynamolocal.Server is one (dynamolocal.New for the test
// binary's server, dynamolocal.NewEngine with WithoutListener for a test in
// a testing/synctest bubble); the interface keeps this package below
// dynamolocal.
type Server interface {
	Client() *dynamodb.Client
	NewClient(optFns ...func(*dynamodb.Options)) *dynamodb.Client
}

// New creates a table of its own for the test t on the server srv, and its
// Table with newTable, given the counting client and the table's name.
func New[Tab any](t *testing.T, srv Server, newTable func(c *ddbtest.CountingClient, name string) (Tab, error)) *Fixture[Tab] {
	t.Helper()
	raw := srv.Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	calls := ddbtest.NewCounting(raw)
	table, err := newTable(calls, name)
	require.NoError(t, err)
	return &Fixture[Tab]{Ctx: context.Background(), Raw: raw, Calls: calls, Table: table, Name: name, Client: srv.NewClient}
}

// Stored reads the raw item with id (consistently), bypassing the mapper;
// nil if there is none.
func (f *Fixture[Tab]) Stored(t *testing.T, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := f.Raw.GetItem(f.Ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(f.Name),
		Key:            map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	return out.Item
}

// StoredCounter decodes the raw item with id with attributevalue, not the
// mapper; the item must exist.
func (f *Fixture[Tab]) StoredCounter(t *testing.T, id string) *Counter {
	t.Helper()
	item := f.Stored(t, id)
	require.NotEmpty(t, item, "item %q is missing", id)
	var c Counter
	require.NoError(t, attributevalue.UnmarshalMapWithOptions(item, &c, func(o *attributevalue.DecoderOptions) { o.TagKey = "dynamo" }))
	return &c
}
