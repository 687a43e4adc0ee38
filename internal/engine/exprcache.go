package engine

import (
	"sync"

	"github.com/optimist-dynamo/optimist/internal/cond"
)

// A client sends the same few expressions again and again (the library's
// version checks and updates differ only in their values), so the engine
// keeps what it parsed of each: the parse is a function of the text alone
// (and of the parameter it came in, which its messages name), and
// internal/cond's parsed expressions are immutable, safe to share between
// requests and engines. Only a parse that succeeded is kept; an
// expression that fails is parsed again each time, so its error is the
// parser's own. Names and values are checked against each request, never
// cached.

const (
	// exprCacheGen is how many expressions a cache's generation holds: a
	// cache holds at most two generations.
	exprCacheGen = 256
	// maxCachedExpr is the longest expression kept: longer ones are
	// parsed at every request, so that a cache holds a few megabytes at
	// most.
	maxCachedExpr = 1024
)

// exprCache is a bounded map of what was parsed of an expression. It keeps
// two generations: a lookup that finds an entry of the older one moves it
// to the newer, and when the newer is full the older is dropped, so that
// the expressions in use stay while the others age out.
type exprCache[K comparable, V any] struct {
	mu        sync.Mutex
	cur, prev map[K]V
}

// get returns the value of key k, from the cache or made by parse; text is
// the expression's text, which bounds what is kept.
func (c *exprCache[K, V]) get(k K, text string, parse func() (V, error)) (V, error) {
	c.mu.Lock()
	v, ok := c.cur[k]
	if !ok {
		if v, ok = c.prev[k]; ok {
			c.add(k, v)
		}
	}
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := parse()
	if err != nil || len(text) > maxCachedExpr {
		return v, err
	}
	c.mu.Lock()
	c.add(k, v)
	c.mu.Unlock()
	return v, nil
}

// add puts k in the newer generation, starting a new one when it is full;
// c.mu is held.
func (c *exprCache[K, V]) add(k K, v V) {
	if len(c.cur) >= exprCacheGen {
		c.prev, c.cur = c.cur, nil
	}
	if c.cur == nil {
		c.cur = make(map[K]V, exprCacheGen)
	}
	c.cur[k] = v
}

// len is how many entries c holds, for tests.
func (c *exprCache[K, V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.prev)
}

// condKey is a condition-like expression and the parameter it came in.
type condKey struct{ param, text string }

// keyCondParse is what a KeyConditionExpression's text parses to.
type keyCondParse struct {
	e    *cond.Expr
	root *knode
}

var (
	condCache       exprCache[condKey, *cond.Expr]
	updateCache     exprCache[string, *cond.Update]
	projectionCache exprCache[string, *cond.Projection]
	keyCondCache    exprCache[string, keyCondParse]
	refsCache       exprCache[string, refs]
)

// parseCondition is cond.ParseAs, kept.
func parseCondition(text, param string) (*cond.Expr, error) {
	return condCache.get(condKey{param, text}, text, func() (*cond.Expr, error) { return cond.ParseAs(text, param) })
}

// parseUpdate is cond.ParseUpdate, kept.
func parseUpdate(text string) (*cond.Update, error) {
	return updateCache.get(text, text, func() (*cond.Update, error) { return cond.ParseUpdate(text) })
}

// parseProjection is cond.ParseProjection, kept.
func parseProjection(text string) (*cond.Projection, error) {
	return projectionCache.get(text, text, func() (*cond.Projection, error) { return cond.ParseProjection(text) })
}

// parseKeyCondition parses a KeyConditionExpression as a condition and as
// the tree of its restricted shape, kept.
func parseKeyCondition(text string) (keyCondParse, error) {
	return keyCondCache.get(text, text, func() (keyCondParse, error) {
		e, err := cond.ParseAs(text, "KeyConditionExpression")
		if err != nil {
			return keyCondParse{}, err
		}
		p := &kparser{toks: ktokens(text)}
		return keyCondParse{e: e, root: p.or()}, nil
	})
}

// exprRefs lists the #names and :values an expression uses and the
// top-level attribute of each of its paths, kept; the lists are shared,
// not to be changed.
func exprRefs(s string) refs {
	r, _ := refsCache.get(s, s, func() (refs, error) { return scanRefs(s), nil })
	return r
}
