package optimist_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/version"
)

// errorClasses are the classes of error that more than one package
// exports: every name of a class must be one value, so that errors.Is with
// any package's name matches the class's errors from every package.
var errorClasses = []struct {
	class string
	names map[string]error
}{
	{"invalid option", map[string]error{
		"mapper": mapper.ErrInvalidOption, "txn": txn.ErrInvalidOption,
		"unit": unit.ErrInvalidOption, "pessimistic": pessimistic.ErrInvalidOption,
	}},
	{"invalid item", map[string]error{"mapper": mapper.ErrInvalidItem, "txn": txn.ErrInvalidItem}},
	{"done", map[string]error{"txn": txn.ErrDone, "unit": unit.ErrDone}},
	{"schema mismatch", map[string]error{"mapper": mapper.ErrSchemaMismatch, "pessimistic": pessimistic.ErrSchemaMismatch}},
	{"locked", map[string]error{"mapper": mapper.ErrLocked, "unit": unit.ErrLocked}},
	{"unknown outcome", map[string]error{"version": version.ErrUnknownOutcome, "mapper": mapper.ErrUnknownOutcome}},
	{"global table", map[string]error{
		"mapper": mapper.ErrGlobalTable, "unit": unit.ErrGlobalTable, "pessimistic": pessimistic.ErrGlobalTable,
	}},
}

// TestErrorClassesAreOneValue checks that every package's name of a shared
// class is the same value: errors.Is matches both ways, and == holds.
func TestErrorClassesAreOneValue(t *testing.T) {
	for _, c := range errorClasses {
		for pa, a := range c.names {
			for pb, b := range c.names {
				assert.Truef(t, a == b, "%s: %s's and %s's are different values (%q, %q)", c.class, pa, pb, a, b)
				assert.Truef(t, errors.Is(a, b), "%s: errors.Is(%s's, %s's) is false", c.class, pa, pb)
			}
		}
	}
	// Distinct meanings keep distinct values.
	assert.NotErrorIs(t, txn.ErrTooLarge, mapper.ErrItemTooLarge, "a 4 MB transaction is not a 400 KB item")
	assert.NotErrorIs(t, mapper.ErrItemTooLarge, txn.ErrTooLarge)
	assert.ErrorIs(t, mapper.ErrItemTooLarge, txn.ErrInvalidItem, "an item too large is an invalid item")
	assert.NotErrorIs(t, pessimistic.ErrNotAcquired, unit.ErrLocked, "a lock held by another owner is not an item held by a unit")
	assert.NotErrorIs(t, mapper.ErrUnknownOutcome, version.ErrConflict)
}

// TestErrorClassesAcrossPackages makes each shared class's errors in each
// package that returns it, and matches every one with every package's
// name of the class.
func TestErrorClassesAcrossPackages(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := dynamolocal.New(t).Client()

	type item struct {
		ID string `dynamo:"id,hash"`
	}
	got := map[string][]error{} // class -> errors, one per package that returns it
	add := func(class, from string, err error) {
		t.Helper()
		require.Errorf(t, err, "%s from %s", class, from)
		got[class] = append(got[class], err)
	}

	// Invalid option: a nil client, in each package.
	_, err := mapper.NewTable[item](nil, "t")
	add("invalid option", "mapper", err)
	add("invalid option", "txn", txn.New(nil).Commit(ctx))
	_, err = unit.Begin(ctx, c) // no Coordinator
	add("invalid option", "unit", err)
	_, err = pessimistic.New(nil, "locks")
	add("invalid option", "pessimistic", err)

	// Invalid item and item too large: a txn op and a mapper put.
	plain := ddbtest.CreateTable(t, c, "id", types.ScalarAttributeTypeS, "", "")
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "a"}}
	nan := map[string]types.AttributeValue{"id": key["id"], "n": &types.AttributeValueMemberN{Value: "NaN"}}
	add("invalid item", "txn", txn.New(c).Add(txn.Put(plain, key, nan)))
	big := map[string]types.AttributeValue{"id": key["id"], "b": &types.AttributeValueMemberS{Value: strings.Repeat("x", 401<<10)}}
	err = txn.New(c).Add(txn.Put(plain, key, big))
	add("invalid item", "txn (too large)", err)
	assert.ErrorIs(t, err, mapper.ErrItemTooLarge, "txn's item over 400 KB is mapper's ErrItemTooLarge")
	assert.NotErrorIs(t, err, txn.ErrTooLarge, "txn's item over 400 KB is not a transaction over 4 MB")
	type doc struct {
		ID   string `dynamo:"id,hash"`
		Body string `dynamo:"b"`
	}
	docs, err := mapper.NewTable[doc](c, plain)
	require.NoError(t, err)
	err = docs.Put(ctx, &doc{ID: "a", Body: strings.Repeat("x", 401<<10)}, mapper.Unversioned())
	add("invalid item", "mapper", err)
	assert.ErrorIs(t, err, mapper.ErrItemTooLarge)

	// Done: a Tx after its Commit, a unit after its Rollback.
	tx := txn.New(c)
	require.NoError(t, tx.Add(txn.Put(plain, key, key)))
	require.NoError(t, tx.Commit(ctx))
	add("done", "txn", tx.Commit(ctx))
	coord := ddbtest.TableName(t)
	require.NoError(t, unit.CreateTable(ctx, c, coord))
	u, err := unit.Begin(ctx, c, unit.Coordinator(coord))
	require.NoError(t, err)
	require.NoError(t, u.Rollback(ctx))
	add("done", "unit", u.Commit(ctx))

	// Schema mismatch: a lock table that is not one, and a struct that
	// does not match the lock table.
	l, err := pessimistic.New(c, plain)
	require.NoError(t, err)
	add("schema mismatch", "pessimistic", l.Check(ctx))
	locks := ddbtest.TableName(t)
	require.NoError(t, pessimistic.CreateTable(ctx, c, locks))
	add("schema mismatch", "mapper", mapper.CreateTable[item](ctx, c, locks))

	for _, class := range errorClasses {
		errs := got[class.class]
		if class.class == "locked" || class.class == "unknown outcome" || class.class == "global table" {
			continue // made by the packages' own tests (one value: see TestErrorClassesAreOneValue)
		}
		require.NotEmptyf(t, errs, "no errors made for %s", class.class)
		for _, err := range errs {
			for pkg, name := range class.names {
				assert.ErrorIsf(t, err, name, "%s: %v does not match %s's name", class.class, err, pkg)
			}
		}
	}
}
