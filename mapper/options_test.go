package mapper_test

// Where the mapper meets the other packages: options that a call cannot
// honour, the table's encoder reaching update values, empty index keys in
// updates.

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
)

// A write option a call cannot honour does not compile
// (options_compile_test.go); what is left to refuse at run time is refused
// before anything is sent, never ignored: a nil option, Outside given to
// Put or Delete (WriteOption serves Update too), and Old or WriteCapacity
// on an ExactlyOnce write, which returns neither.
func TestOptionsACallCannotHonourAreRefused(t *testing.T) {
	f := newFixture(t)
	var prev *Counter
	var capacity mapper.Capacity
	once, err := mapper.NewTable[Counter](f.Calls, f.Name, func(o *mapper.TableOptions) { o.ExactlyOnce = true })
	require.NoError(t, err)
	cases := map[string]error{
		"Put ExactlyOnce WriteCapacity": f.Table.Put(f.Ctx, &Counter{ID: "a"}, mapper.ExactlyOnce(), mapper.WriteCapacity(&capacity)),
		"Put Old, ExactlyOnce table":    once.Put(f.Ctx, &Counter{ID: "a"}, mapper.Old(&prev)),
		"Put Outside":                   f.Table.Put(f.Ctx, &Counter{ID: "a"}, mapper.Outside("x")),
		"Delete Outside":                f.Table.Delete(f.Ctx, Counter{ID: "a"}, mapper.Outside("x")),
		"a nil option":                  f.Table.Put(f.Ctx, &Counter{ID: "a"}, nil),
		"a zero option":                 f.Table.Save(f.Ctx, &Counter{ID: "a"}, mapper.CommonOption{}),
		"PutOp with a nil option":       f.Table.PutOp(&Counter{ID: "a"}, nil).Err(),
	}
	for name, err := range cases {
		assert.ErrorIs(t, err, mapper.ErrInvalidOption, name)
	}
	assert.Zero(t, f.Calls.Total(), "nothing was sent")
}

// Stamped has a time kept as epoch seconds by the table's encoder options.
type Stamped struct {
	ID string    `dynamo:"id,hash"`
	At time.Time `dynamo:"at"`
}

// The table's EncoderOptions reach Update's values as they reach the
// struct's fields: one encoder for both.
func TestEncoderOptionsReachUpdate(t *testing.T) {
	f := newFixture(t)
	unix := func(o *attributevalue.EncoderOptions) {
		o.EncodeTime = func(t time.Time) (types.AttributeValue, error) {
			return &types.AttributeValueMemberN{Value: strconv.FormatInt(t.Unix(), 10)}, nil
		}
	}
	decodeUnix := func(o *attributevalue.DecoderOptions) {
		o.DecodeTime.N = func(s string) (time.Time, error) {
			n, err := strconv.ParseInt(s, 10, 64)
			return time.Unix(n, 0).UTC(), err
		}
	}
	table, err := mapper.NewTable[Stamped](f.Raw, f.Name, func(o *mapper.TableOptions) {
		o.EncoderOptions = append(o.EncoderOptions, unix)
		o.DecoderOptions = append(o.DecoderOptions, decodeUnix)
	})
	require.NoError(t, err)
	first := time.Unix(1_700_000_000, 0).UTC()
	require.NoError(t, table.Put(f.Ctx, &Stamped{ID: "s", At: first}))
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1700000000"}, f.Stored(t, "s")["at"], "Put encodes with the options")

	later := first.Add(time.Hour)
	got, err := table.Update(f.Ctx, Stamped{ID: "s"}, update.Set("at", later))
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1700003600"}, f.Stored(t, "s")["at"], "Update encodes with the options too")
	assert.True(t, later.Equal(got.At))

	_, err = table.Update(f.Ctx, Stamped{ID: "s"}, update.Set("extra", &types.AttributeValueMemberS{Value: "as given"}))
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "as given"}, f.Stored(t, "s")["extra"], "an attribute value is sent as it is")
}

// StatusTicket is indexed by status in a global secondary index.
type StatusTicket struct {
	ID      string `dynamo:"id,hash"`
	Status  string `dynamo:"status" index:"by-status,hash"`
	Version int64  `dynamo:"v,version"`
}

// An Update that sets an index key to "" removes the attribute instead:
// DynamoDB refuses an empty index key, and the item simply leaves the
// index (a sparse index).
func TestUpdateOfAnEmptyIndexKeyRemovesIt(t *testing.T) {
	ctx := context.Background()
	c := dynamolocal.New(t).Client()
	name := ddbtest.TableName(t)
	require.NoError(t, mapper.CreateTable[StatusTicket](ctx, c, name))
	ddbtest.DeleteAtCleanup(t, c, name)
	table, err := mapper.NewTable[StatusTicket](c, name)
	require.NoError(t, err)
	require.NoError(t, table.Put(ctx, &StatusTicket{ID: "t1", Status: "open"}))
	got, err := table.Update(ctx, StatusTicket{ID: "t1"}, update.Set("status", ""))
	require.NoError(t, err)
	assert.Equal(t, "", got.Status)
	assert.Equal(t, int64(2), got.Version)
	for item, err := range table.Query(ctx, expression.Key("status").Equal(expression.Value("open")), mapper.Index("by-status")) {
		require.NoError(t, err)
		t.Errorf("the item should have left the index: %+v", item)
	}
}
