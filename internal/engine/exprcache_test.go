package engine

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/cond"
)

// TestExprCacheBounded fills a cache with more expressions than it holds:
// it keeps at most two generations, the expressions in use among them.
func TestExprCacheBounded(t *testing.T) {
	var c exprCache[string, int]
	parses := 0
	get := func(k string) int {
		v, err := c.get(k, k, func() (int, error) { parses++; return len(k), nil })
		require.NoError(t, err)
		return v
	}
	hot := "hot"
	for i := range 10 * exprCacheGen {
		get(fmt.Sprint("k", i))
		require.Equal(t, 3, get(hot))
		require.LessOrEqual(t, c.len(), 2*exprCacheGen)
	}
	require.Equal(t, 10*exprCacheGen+1, parses, "the expression in use is parsed once")
	before := parses
	get("k0") // long gone
	require.Equal(t, before+1, parses)
}

// TestExprCacheKeepsNoFailure: an expression that fails is parsed at every
// request, and one longer than maxCachedExpr is not kept.
func TestExprCacheKeepsNoFailure(t *testing.T) {
	var c exprCache[string, int]
	boom := errors.New("boom")
	parses := 0
	for range 3 {
		_, err := c.get("bad", "bad", func() (int, error) { parses++; return 0, boom })
		require.ErrorIs(t, err, boom)
	}
	long := strings.Repeat("x", maxCachedExpr+1)
	for range 3 {
		_, err := c.get(long, long, func() (int, error) { parses++; return 1, nil })
		require.NoError(t, err)
	}
	require.Equal(t, 6, parses)
	require.Zero(t, c.len())
}

// TestParseCachedSameAnswers holds the cached parsers to internal/cond's,
// concurrently (run with -race): the same trees, the same errors, and a
// condition's messages naming the parameter it came in even when another
// parameter carried the same text first.
func TestParseCachedSameAnswers(t *testing.T) {
	conds := []string{"attribute_exists(pk) AND #v >= :one", "a = :a", "a = ", "#x = :y OR", "size(l) > :z", "(a = :a)", "((a = :a))"}
	updates := []string{"SET title = :t ADD #v :one", "SET a = list_append(a, :l) REMOVE b", "SET", "SET a = :a SET b = :b", "ADD a :a, b :b"}
	projs := []string{"a, b.c, #d[0]", "a, a", "a.", ""}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				param := []string{"ConditionExpression", "FilterExpression"}[(g+i)%2]
				for _, s := range conds {
					got, err := parseCondition(s, param)
					want, wantErr := cond.ParseAs(s, param)
					require.Equal(t, wantErr, err, "%q", s)
					require.Equal(t, want, got, "%q", s)
					if err == nil {
						_, gotEval := got.Eval(nil, nil, nil)
						_, wantEval := want.Eval(nil, nil, nil)
						require.Equal(t, wantEval, gotEval, "%q as %s", s, param)
					}
				}
				for _, s := range updates {
					got, err := parseUpdate(s)
					want, wantErr := cond.ParseUpdate(s)
					require.Equal(t, wantErr, err, "%q", s)
					require.Equal(t, want, got, "%q", s)
				}
				for _, s := range projs {
					got, err := parseProjection(s)
					want, wantErr := cond.ParseProjection(s)
					require.Equal(t, wantErr, err, "%q", s)
					require.Equal(t, want, got, "%q", s)
				}
				for _, s := range conds {
					require.Equal(t, scanRefs(s), exprRefs(s), "%q", s)
				}
			}
		}()
	}
	wg.Wait()
	// The parameter is part of the key: the same text, cached as a
	// ConditionExpression, is a FilterExpression in the filter's messages.
	for _, param := range []string{"ConditionExpression", "FilterExpression", "ConditionExpression"} {
		e, err := parseCondition("#undefined = :a", param)
		require.NoError(t, err)
		_, err = e.Eval(nil, nil, nil)
		var ce *cond.Error
		require.True(t, errors.As(err, &ce), "%v", err)
		require.Contains(t, ce.Msg, "Invalid "+param+":")
	}
}
