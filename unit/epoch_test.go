package unit_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/unit"
)

// TestWorldAtAnyEpoch runs one whole world (the embedded engine, two
// Lockers, Modify, a unit that crashes, and Recover) in a testing/synctest
// bubble at several epochs, the bubble's time moved there by time.Sleep
// before anything is made. Everything the library and the engine time
// follows the time package, so the world behaves the same whatever the
// date: a held lock is refused to Acquire(Wait(0)) and taken over only
// after its lease, the TTLs written lie ahead of now, and Recover finds
// the crashed unit's locks through its pages.
func TestWorldAtAnyEpoch(t *testing.T) {
	epochs := []time.Time{
		time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), // where a bubble starts
		time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2150, 6, 1, 12, 0, 0, 0, time.UTC),
	}
	var transcripts [][]string
	for _, epoch := range epochs {
		synctest.Test(t, func(t *testing.T) {
			time.Sleep(time.Until(epoch))
			require.True(t, time.Now().Equal(epoch))
			transcripts = append(transcripts, world(t))
		})
	}
	want := []string{
		"a acquired: <nil>",
		"b Acquire(Wait(0)) while a holds: not acquired true",
		"lock TTL ahead of now: true",
		"Modify: balance 105",
		"unit Get: balance 100",
		"unit pages' TTL ahead of now: true",
		"b took over a's lock: <nil>, after a full lease true, higher token true",
		"Recover: 1 <nil>, locked items left 0",
	}
	for i, got := range transcripts {
		assert.Equal(t, want, got, "at %v", epochs[i])
	}
}

// world is TestWorldAtAnyEpoch's world, run in the bubble: what it saw.
func world(t *testing.T) []string {
	var log []string
	say := func(format string, args ...any) { log = append(log, fmt.Sprintf(format, args...)) }
	ctx := context.Background()
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	e.seed(t, 2, 100)
	locks := ddbtest.TableName(t) + "-locks"
	require.NoError(t, pessimistic.CreateTable(ctx, e.c, locks))
	const lease = 10 * time.Second

	a, err := pessimistic.New(e.c, locks, pessimistic.Owner("a"), pessimistic.LeaseDuration(lease))
	require.NoError(t, err)
	// b polls every second, not every 100 ms (the default): it waits out a
	// 10 s lease, and each poll is a call.
	b, err := pessimistic.New(e.c, locks, pessimistic.Owner("b"), pessimistic.PollInterval(time.Second))
	require.NoError(t, err)
	defer b.Close()
	held, err := a.Acquire(ctx, "job")
	say("a acquired: %v", err)
	require.NoError(t, err)
	_, err = b.Acquire(ctx, "job", pessimistic.Wait(0))
	say("b Acquire(Wait(0)) while a holds: not acquired %v", errors.Is(err, pessimistic.ErrNotAcquired))
	say("lock TTL ahead of now: %v", ttlsAhead(t, raw(t, e.c, locks), 1))

	acct, err := e.accounts.Modify(ctx, Account{ID: accountID(0)}, func(a *Account) error { a.Balance += 5; return nil })
	require.NoError(t, err)
	say("Modify: balance %d", acct.Balance)

	cc := &crashClient{c: e.c, limit: -1}
	u := begin(t, e, cc, unit.LeaseDuration(lease))
	got, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(1)})
	require.NoError(t, err)
	say("unit Get: balance %d", got.Balance)
	var pages []map[string]types.AttributeValue
	for _, r := range raw(t, e.c, e.coord) {
		if strings.Contains(r[unitproto.RecID].(*types.AttributeValueMemberS).Value, "#") {
			pages = append(pages, r)
		}
	}
	say("unit pages' TTL ahead of now: %v", ttlsAhead(t, pages, 1))
	cc.paused.Store(true) // the unit's process dies
	a.Close()             // and so does a's: no heartbeats, no release

	start := time.Now()
	taken, err := b.Acquire(ctx, "job")
	say("b took over a's lock: %v, after a full lease %v, higher token %v", err, time.Since(start) >= lease, err == nil && taken.Token() > held.Token())
	require.NoError(t, err)
	require.NoError(t, taken.Release(ctx))

	n, err := unit.Recover(ctx, e.c, e.coord)
	say("Recover: %d %v, locked items left %d", n, err, lockedItems(t, e.c, e.accounts.Name()))
	// The dead unit's heartbeats go on until Rollback stops them, and a
	// bubble ends only with its goroutines.
	cc.paused.Store(false)
	_ = u.Rollback(ctx)
	return log
}

// ttlsAhead reports whether items are want or more, and each has a "ttl"
// attribute (epoch seconds) after now.
func ttlsAhead(t *testing.T, items []map[string]types.AttributeValue, want int) bool {
	t.Helper()
	if len(items) < want {
		return false
	}
	for _, it := range items {
		v, ok := it["ttl"].(*types.AttributeValueMemberN)
		if !ok {
			return false
		}
		sec, err := strconv.ParseInt(v.Value, 10, 64)
		if err != nil || sec <= time.Now().Unix() {
			return false
		}
	}
	return true
}
