package mapper_test

// Table.Update against DynamoDB Local.

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// TestConcurrentAtomicVotes: 60 voters append themselves and count their
// vote in one UpdateItem each, at the same time, with no read.
func TestConcurrentAtomicVotes(t *testing.T) {
	const voters = 60
	c := newCandidates(t)
	require.NoError(t, c.table.Put(c.ctx, &Candidate{ID: "ada", Name: "Ada", Status: "running"}))
	c.calls.Reset()

	var wg sync.WaitGroup
	for i := range voters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			voter := fmt.Sprintf("voter-%02d", i)
			_, err := c.table.Update(c.ctx, Candidate{ID: "ada"}, update.Append("votedBy", voter).Add("votes", 1))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()

	assert.Equal(t, int64(voters), c.calls.Count("UpdateItem"))
	assert.Equal(t, int64(voters), c.calls.Total(), "exactly one call per vote")

	got, err := c.table.Get(c.ctx, Candidate{ID: "ada"})
	require.NoError(t, err)
	assert.Equal(t, voters, got.Votes)
	require.Len(t, got.VotedBy, voters)
	sorted := append([]string(nil), got.VotedBy...)
	sort.Strings(sorted)
	for i, v := range sorted {
		assert.Equal(t, fmt.Sprintf("voter-%02d", i), v, "every voter once")
	}
	assert.Equal(t, int64(1+voters), got.Version, "the version was bumped by every update")
	assert.Equal(t, "Ada", got.Name, "unrelated attributes untouched")
	assert.Equal(t, "running", got.Status)

	// A full-item Put from a copy read before the votes conflicts.
	stale := &Candidate{ID: "ada", Name: "Ada", Status: "withdrawn", Version: 1}
	requireConflict(t, c.table.Put(c.ctx, stale), 1, int64(1+voters))
}

// TestAppendAfterPutOfNilOrEmptySlice: an item saved from a struct whose
// slice was nil or empty must take a list_append and an ADD to its set
// later. attributevalue alone would store the nil slice as NULL, and
// list_append on NULL fails with a type error.
func TestAppendAfterPutOfNilOrEmptySlice(t *testing.T) {
	c := newCandidates(t)
	require.NoError(t, c.table.Put(c.ctx, &Candidate{ID: "nil"}))
	require.NoError(t, c.table.Put(c.ctx, &Candidate{ID: "empty", VotedBy: []string{}, Tags: []string{}}))
	for _, id := range []string{"nil", "empty"} {
		got, err := c.table.Update(c.ctx, Candidate{ID: id}, update.Append("votedBy", "x").Add("tags", []string{"t"}))
		require.NoError(t, err, id)
		assert.Equal(t, []string{"x"}, got.VotedBy, id)
		assert.Equal(t, []string{"t"}, got.Tags, id)
	}

	// The failure the policy prevents, shown with a NULL stored by hand.
	_, err := c.table.Update(c.ctx, Candidate{ID: "null"}, update.Set("votedBy", nil))
	require.NoError(t, err)
	_, err = c.table.Update(c.ctx, Candidate{ID: "null"}, update.Append("votedBy", "x"))
	require.Error(t, err, "list_append on a NULL attribute is a type error in DynamoDB")
}

func TestUpdateActionsAgainstDynamoDB(t *testing.T) {
	c := newCandidates(t)
	require.NoError(t, c.table.Put(c.ctx, &Candidate{
		ID: "a", Name: "A", Status: "draft", VotedBy: []string{"m"}, Tags: []string{"x", "y"},
		Data: map[string][]Slot{"items": {{Label: "first", Names: []string{"p"}}}},
	}))

	got, err := c.table.Update(c.ctx, Candidate{ID: "a"}, update.
		Add("tags", []string{"z"}).
		Prepend("votedBy", "first").
		Remove("status").
		Set("data.items[0].label", "renamed").
		Append("data.items[0].names", []string{"q", "r"}).
		SetIfNotExists("name", "ignored"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"x", "y", "z"}, got.Tags)
	assert.Equal(t, []string{"first", "m"}, got.VotedBy)
	assert.Equal(t, "", got.Status)
	assert.Equal(t, []Slot{{Label: "renamed", Names: []string{"p", "q", "r"}}}, got.Data["items"])
	assert.Equal(t, "A", got.Name, "if_not_exists kept the stored name")
	assert.Equal(t, int64(2), got.Version)

	got, err = c.table.Update(c.ctx, Candidate{ID: "a"}, update.Delete("tags", []string{"x", "z"}).Remove("data.items[0].names[1]"))
	require.NoError(t, err)
	assert.Equal(t, []string{"y"}, got.Tags)
	assert.Equal(t, []string{"p", "r"}, got.Data["items"][0].Names)

	// Deleting the last element leaves no set at all (DynamoDB's rule).
	got, err = c.table.Update(c.ctx, Candidate{ID: "a"}, update.Delete("tags", []string{"y"}))
	require.NoError(t, err)
	assert.Empty(t, got.Tags)
	assert.Equal(t, int64(4), got.Version)
}

func TestVersionedUpdate(t *testing.T) {
	c := newCandidates(t)
	cand := &Candidate{ID: "a", Votes: 1}
	require.NoError(t, c.table.Put(c.ctx, cand)) // version 1

	got, err := c.table.Update(c.ctx, Candidate{ID: "a", Version: 1}, update.Add("votes", 1))
	require.NoError(t, err, "the key's version matches")
	assert.Equal(t, 2, got.Votes)
	assert.Equal(t, int64(2), got.Version)

	_, err = c.table.Update(c.ctx, Candidate{ID: "a", Version: 1}, update.Add("votes", 1))
	ce := requireConflict(t, err, 1, 2)
	require.NotNil(t, ce.Item)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "2"}, ce.Item["votes"])

	_, err = c.table.Update(c.ctx, Candidate{ID: "gone", Version: 3}, update.Add("votes", 1))
	requireConflict(t, err, 3, 0)
	_, err = c.table.Get(c.ctx, Candidate{ID: "gone"})
	require.ErrorIs(t, err, mapper.ErrNotFound, "a versioned update never creates")

	// Unversioned: no check, but the version still moves.
	got, err = c.table.Update(c.ctx, Candidate{ID: "a", Version: 1}, update.Add("votes", 1), mapper.Unversioned())
	require.NoError(t, err)
	assert.Equal(t, int64(3), got.Version)

	// Version 0 on a missing item creates it, at version 1.
	got, err = c.table.Update(c.ctx, Candidate{ID: "new"}, update.Set("name", "N"))
	require.NoError(t, err)
	assert.Equal(t, &Candidate{ID: "new", Name: "N", Version: 1}, got)

	// A condition of the caller's own.
	open := mapper.If(expression.Name("status").Equal(expression.Value("open")))
	_, err = c.table.Update(c.ctx, Candidate{ID: "new"}, update.Set("name", "M"), open)
	require.ErrorIs(t, err, mapper.ErrConditionFailed)
	assert.False(t, version.IsConflict(err))
	_, err = c.table.Update(c.ctx, Candidate{ID: "nobody"}, update.Set("name", "M"),
		mapper.If(expression.AttributeExists(expression.Name("id"))))
	require.ErrorIs(t, err, mapper.ErrConditionFailed)
	_, err = c.table.Get(c.ctx, Candidate{ID: "nobody"})
	require.ErrorIs(t, err, mapper.ErrNotFound)
}

// TestReservedWordsInUpdates: every name is a placeholder.
func TestReservedWordsInUpdates(t *testing.T) {
	srv := dynamolocal.New(t)
	name := ddbtest.CreateTable(t, srv.Client(), "name", types.ScalarAttributeTypeS, "", "")
	type Reserved struct {
		Name   string         `dynamo:"name,hash"`
		Status string         `dynamo:"status"`
		Count  int            `dynamo:"count"`
		Data   map[string]int `dynamo:"data"`
		TTL    int64          `dynamo:"ttl"`
		Ver    int64          `dynamo:"size,version"`
	}
	table, err := mapper.NewTable[Reserved](srv.Client(), name)
	require.NoError(t, err)
	ctx := context.Background()
	got, err := table.Update(ctx, Reserved{Name: "r"}, update.Set("status", "ok").Add("count", 2).Set("data", map[string]int{"from": 1}).SetIfNotExists("ttl", 99))
	require.NoError(t, err)
	got, err = table.Update(ctx, Reserved{Name: "r", Ver: got.Ver}, update.Add("data.from", 1).Remove("ttl"), mapper.If(expression.Name("status").Equal(expression.Value("ok"))))
	require.NoError(t, err)
	assert.Equal(t, &Reserved{Name: "r", Status: "ok", Count: 2, Data: map[string]int{"from": 2}, Ver: 2}, got)
}

// TestBadUpdatesSendNothing: each refused update has its own error, and
// the counting client sees no call.
func TestBadUpdatesSendNothing(t *testing.T) {
	c := newCandidates(t)
	cases := []struct {
		name string
		u    *update.Builder
		want error
	}{
		{"empty path", update.Set("", 1), update.ErrInvalidPath},
		{"malformed path", update.Set("a..b", 1), update.ErrInvalidPath},
		{"overlapping paths", update.Set("data.x", 1).Remove("data"), update.ErrInvalidPath},
		{"same path twice", update.Add("votes", 1).Add("votes", 2), update.ErrInvalidPath},
		{"add of a string", update.Add("votes", "one"), update.ErrInvalidValue},
		{"empty set", update.Add("tags", []string{}), update.ErrInvalidValue},
		{"delete of a non-set", update.Delete("tags", "x"), update.ErrInvalidValue},
		{"no actions", new(update.Builder), update.ErrNoActions},
		{"version attribute", update.Add("version", 1), mapper.ErrInvalidOption},
		{"key attribute", update.Set("id", "other"), mapper.ErrInvalidOption},
		{"token attribute", update.Remove("optimist_token"), mapper.ErrInvalidOption},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.calls.Reset()
			_, err := c.table.Update(c.ctx, Candidate{ID: "a"}, tc.u)
			require.ErrorIs(t, err, tc.want)
			require.ErrorIs(t, err, mapper.ErrInvalidOption, "all are invalid updates")
			assert.Equal(t, int64(0), c.calls.Total(), "no call sent")
		})
	}
	c.calls.Reset()
	_, err := c.table.Update(c.ctx, Candidate{}, update.Add("votes", 1))
	require.ErrorIs(t, err, mapper.ErrInvalidItem)
	assert.Equal(t, int64(0), c.calls.Total())
}

// TestLostUpdateResponseAppliesOnce: DynamoDB Local applies an UpdateItem
// and the response is lost. An Update of whatever version is stored is
// never resent then (issue 10: a resend after another writer replaced the
// token would add a second vote); one consistent GetItem finds the write
// token, and Update reports the item as written by the first attempt.
func TestLostUpdateResponseAppliesOnce(t *testing.T) {
	srv := dynamolocal.New(t)
	c := newCandidates(t)
	drop := &ddbtest.DropTransport{DropOps: map[string]int{"UpdateItem": 1}}
	lossy, err := mapper.NewTable[Candidate](srv.NewClient(drop.Option()), c.name)
	require.NoError(t, err)

	got, err := lossy.Update(c.ctx, Candidate{ID: "a"}, update.Append("votedBy", "v1").Add("votes", 1))
	require.NoError(t, err)
	assert.Equal(t, 1, drop.Dropped())
	assert.Equal(t, 1, drop.Calls("UpdateItem"), "not resent")
	assert.Equal(t, 1, drop.Calls("GetItem"), "settled by one read")
	assert.Equal(t, 1, got.Votes)
	assert.Equal(t, []string{"v1"}, got.VotedBy)

	stored, err := c.table.Get(c.ctx, Candidate{ID: "a"})
	require.NoError(t, err)
	assert.Equal(t, got, stored)
}
