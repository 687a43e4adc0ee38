//go:build conformance

package conformance

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// This file generates tables, items, conditions, updates, queries and
// scans from a seed. Both sides receive the same requests in the same
// order, so their states stay equal as long as they agree; values are
// drawn from small pools so that keys collide, conditions hold about half
// the time and updates meet the types they need often enough.

// genTable is a generated table.
type genTable struct {
	name      string // logical
	hash, rng string
	ht, rt    types.ScalarAttributeType
	gsiName   string // "" for none
	gh, gr    string
	ght, grt  types.ScalarAttributeType
	lsiName   string
	lr        string
	lrt       types.ScalarAttributeType
	keys      []item // keys written so far
}

type generator struct {
	r      *rand.Rand
	tables []*genTable
	// The table and keys the last request writes, for resync.
	wTable *genTable
	wKeys  []item
}

var (
	genNames   = []string{"a", "b", "c", "name", "x.y"} // name is reserved, x.y needs a placeholder
	genNested  = []string{"p", "q", "r"}
	genStrings = []string{"", "a", "ab", "abc", "b", "ba", "é", "😀", "10", "A"}
	genNumbers = []string{"0", "1", "-1", "2", "10", "0.5", "1E+3", "-5.5", "123456789012345678901234567890", "1E-10", "3.00"}
	genBinary  = []string{"\x00", "a", "ab", "\xff", "b"}
)

func (g *generator) chance(p float64) bool { return g.r.Float64() < p }

func gpick[E any](g *generator, s []E) E { return s[g.r.IntN(len(s))] }

// scalar returns a value of key type t.
func (g *generator) scalar(t types.ScalarAttributeType) av {
	switch t {
	case tN:
		return N(gpick(g, genNumbers))
	case tB:
		return B(gpick(g, genBinary))
	}
	s := gpick(g, genStrings)
	if s == "" {
		s = "e"
	}
	return S(s)
}

// value returns a random attribute value, nested up to depth 2.
func (g *generator) value(depth int) av {
	k := g.r.IntN(12)
	if depth >= 2 && k >= 9 {
		k = g.r.IntN(9)
	}
	switch k {
	case 0, 1:
		return S(gpick(g, genStrings))
	case 2, 3:
		return N(gpick(g, genNumbers))
	case 4:
		return B(gpick(g, genBinary))
	case 5:
		return BOOL(g.chance(0.5))
	case 6:
		return NULL()
	case 7:
		return SS(distinct(g, genStrings[1:], 1+g.r.IntN(3))...)
	case 8:
		return NS(distinct(g, []string{"1", "2", "3", "-1", "0.5", "10"}, 1+g.r.IntN(3))...)
	case 9:
		var l []av
		for range g.r.IntN(4) {
			l = append(l, g.value(depth+1))
		}
		return L(l...)
	default:
		m := item{}
		for _, nm := range genNested {
			if g.chance(0.5) {
				m[nm] = g.value(depth + 1)
			}
		}
		return &types.AttributeValueMemberM{Value: m}
	}
}

func distinct(g *generator, pool []string, n int) []string {
	perm := g.r.Perm(len(pool))
	out := make([]string, 0, n)
	for _, i := range perm[:min(n, len(pool))] {
		out = append(out, pool[i])
	}
	return out
}

// table draws a table schema.
func (g *generator) table(i int) *genTable {
	kt := []types.ScalarAttributeType{tS, tN, tB}
	t := &genTable{name: fmt.Sprintf("g%d", i), hash: "pk", ht: gpick(g, kt)}
	if g.chance(0.7) {
		t.rng, t.rt = "sk", gpick(g, kt)
	}
	if g.chance(0.6) {
		t.gsiName, t.gh, t.ght = "gsi1", "gh", gpick(g, kt)
		if g.chance(0.5) {
			t.gr, t.grt = "gr", gpick(g, kt)
		}
	}
	if t.rng != "" && g.chance(0.5) {
		t.lsiName, t.lr, t.lrt = "lsi1", "lr", gpick(g, kt)
	}
	return t
}

func (g *generator) createInput(n namer, t *genTable) *dynamodb.CreateTableInput {
	projs := []types.ProjectionType{types.ProjectionTypeAll, types.ProjectionTypeKeysOnly, types.ProjectionTypeInclude}
	var mods []tableMod
	if t.gsiName != "" {
		p := gpick(g, projs)
		var nk []string
		if p == types.ProjectionTypeInclude {
			nk = []string{"a", "c"}
		}
		mods = append(mods, gsi(t.gsiName, t.gh, t.ght, t.gr, t.grt, p, nk...))
	}
	if t.lsiName != "" {
		p := gpick(g, projs)
		var nk []string
		if p == types.ProjectionTypeInclude {
			nk = []string{"b"}
		}
		mods = append(mods, lsi(t.lsiName, t.lr, t.lrt, p, nk...))
	}
	return createIn(n, t.name, t.hash, t.ht, t.rng, t.rt, mods...)
}

// key draws a key: often one already written.
func (g *generator) key(t *genTable) item {
	if len(t.keys) > 0 && g.chance(0.6) {
		return gpick(g, t.keys)
	}
	k := it(t.hash, g.scalar(t.ht))
	if t.rng != "" {
		k[t.rng] = g.scalar(t.rt)
	}
	return k
}

func (g *generator) item(t *genTable) item {
	x := item{}
	for k, v := range g.key(t) {
		x[k] = v
	}
	for _, nm := range genNames {
		if g.chance(0.6) {
			x[nm] = g.value(0)
		}
	}
	if t.gsiName != "" && g.chance(0.7) {
		x[t.gh] = g.scalar(t.ght)
		if t.gr != "" {
			x[t.gr] = g.scalar(t.grt)
		}
	}
	if t.lsiName != "" && g.chance(0.7) {
		x[t.lr] = g.scalar(t.lrt)
	}
	return x
}

// expr collects the names and values of one expression.
type expr struct {
	names map[string]string
	vals  item
}

func (e *expr) name(g *generator, nm string) string {
	if nm == "x.y" || nm == "name" || g.chance(0.3) {
		ph := "#" + strings.NewReplacer(".", "_").Replace(nm)
		if e.names == nil {
			e.names = map[string]string{}
		}
		e.names[ph] = nm
		return ph
	}
	return nm
}

func (e *expr) value(v av) string {
	if e.vals == nil {
		e.vals = item{}
	}
	ph := fmt.Sprintf(":v%d", len(e.vals))
	e.vals[ph] = v
	return ph
}

// path draws a document path: a top-level name, a nested one, or a list
// element.
func (g *generator) path(e *expr) string {
	p := e.name(g, gpick(g, genNames))
	switch g.r.IntN(5) {
	case 0:
		p += "." + e.name(g, gpick(g, genNested))
	case 1:
		p += fmt.Sprintf("[%d]", g.r.IntN(3))
	}
	return p
}

// cond draws a condition.
func (g *generator) cond(e *expr, depth int) string {
	if depth < 2 && g.chance(0.3) {
		op := gpick(g, []string{"AND", "OR"})
		return fmt.Sprintf("(%s) %s (%s)", g.cond(e, depth+1), op, g.cond(e, depth+1))
	}
	if depth < 2 && g.chance(0.1) {
		return "NOT " + g.cond(e, depth+1)
	}
	p := g.path(e)
	switch g.r.IntN(9) {
	case 0:
		return "attribute_exists(" + p + ")"
	case 1:
		return "attribute_not_exists(" + p + ")"
	case 2:
		return fmt.Sprintf("begins_with(%s, %s)", p, e.value(S(gpick(g, genStrings))))
	case 3:
		return fmt.Sprintf("contains(%s, %s)", p, e.value(g.value(2)))
	case 4:
		return fmt.Sprintf("size(%s) %s %s", p, gpick(g, []string{"=", "<", ">="}), e.value(N(fmt.Sprint(g.r.IntN(4)))))
	case 5:
		return fmt.Sprintf("attribute_type(%s, %s)", p, e.value(S(gpick(g, []string{"S", "N", "B", "SS", "NS", "BS", "BOOL", "NULL", "L", "M"}))))
	case 6:
		return fmt.Sprintf("%s BETWEEN %s AND %s", p, e.value(N("0")), e.value(N(gpick(g, []string{"1", "10", "1E+3"}))))
	case 7:
		return fmt.Sprintf("%s IN (%s, %s)", p, e.value(g.value(2)), e.value(g.value(2)))
	}
	return fmt.Sprintf("%s %s %s", p, gpick(g, []string{"=", "<>", "<", "<=", ">", ">="}), e.value(g.value(2)))
}

// update draws an update expression.
func (g *generator) update(e *expr) string {
	var sets, removes, adds, dels []string
	for range 1 + g.r.IntN(3) {
		p := g.path(e)
		switch g.r.IntN(9) {
		case 0, 1:
			sets = append(sets, p+" = "+e.value(g.value(1)))
		case 2:
			sets = append(sets, fmt.Sprintf("%s = %s %s %s", p, g.path(e), gpick(g, []string{"+", "-"}), e.value(N(gpick(g, genNumbers)))))
		case 3:
			sets = append(sets, fmt.Sprintf("%s = list_append(%s, %s)", p, g.path(e), e.value(L(g.value(2)))))
		case 4:
			sets = append(sets, fmt.Sprintf("%s = if_not_exists(%s, %s)", p, p, e.value(g.value(1))))
		case 5:
			removes = append(removes, p)
		case 6:
			adds = append(adds, p+" "+e.value(N(gpick(g, genNumbers))))
		case 7:
			adds = append(adds, p+" "+e.value(SS(distinct(g, genStrings[1:], 1+g.r.IntN(2))...)))
		default:
			dels = append(dels, p+" "+e.value(SS(distinct(g, genStrings[1:], 1+g.r.IntN(2))...)))
		}
	}
	var parts []string
	for _, c := range []struct {
		kw   string
		acts []string
	}{{"SET", sets}, {"REMOVE", removes}, {"ADD", adds}, {"DELETE", dels}} {
		if len(c.acts) > 0 {
			parts = append(parts, c.kw+" "+strings.Join(c.acts, ", "))
		}
	}
	return strings.Join(parts, " ")
}

func (g *generator) projection(e *expr) string {
	var ps []string
	for range 1 + g.r.IntN(3) {
		ps = append(ps, g.path(e))
	}
	return strings.Join(ps, ", ")
}

func (g *generator) rcc() types.ReturnConsumedCapacity {
	return gpick(g, []types.ReturnConsumedCapacity{"", types.ReturnConsumedCapacityTotal, types.ReturnConsumedCapacityIndexes})
}

// request draws the next request; it returns its operation and a builder
// of its input for either side.
func (g *generator) request() func(n namer) any {
	t := gpick(g, g.tables)
	g.wTable, g.wKeys = t, nil
	var e expr
	nm := func() map[string]string {
		if len(e.names) == 0 {
			return nil
		}
		return e.names
	}
	vs := func() item {
		if len(e.vals) == 0 {
			return nil
		}
		return e.vals
	}
	switch k := g.r.IntN(100); {
	case k < 22:
		x := g.item(t)
		in := &dynamodb.PutItemInput{Item: x, ReturnConsumedCapacity: g.rcc()}
		if g.chance(0.3) {
			in.ReturnValues = types.ReturnValueAllOld
		}
		if g.chance(0.4) {
			in.ConditionExpression = str(g.cond(&e, 0))
			if g.chance(0.5) {
				in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
			}
		}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = nm(), vs()
		t.remember(x)
		g.wKeys = []item{keyOf(t, x)}
		return func(n namer) any { c := *in; c.TableName = str(n.T(t.name)); return &c }
	case k < 44:
		key := g.key(t)
		in := &dynamodb.UpdateItemInput{Key: key, UpdateExpression: str(g.update(&e)), ReturnConsumedCapacity: g.rcc(),
			ReturnValues: gpick(g, []types.ReturnValue{"", types.ReturnValueAllOld, types.ReturnValueAllNew, types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew})}
		if g.chance(0.3) {
			in.ConditionExpression = str(g.cond(&e, 0))
			if g.chance(0.5) {
				in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
			}
		}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = nm(), vs()
		t.remember(key)
		g.wKeys = []item{key}
		return func(n namer) any { c := *in; c.TableName = str(n.T(t.name)); return &c }
	case k < 52:
		in := &dynamodb.DeleteItemInput{Key: g.key(t), ReturnConsumedCapacity: g.rcc()}
		g.wKeys = []item{in.Key}
		if g.chance(0.5) {
			in.ReturnValues = types.ReturnValueAllOld
		}
		if g.chance(0.4) {
			in.ConditionExpression = str(g.cond(&e, 0))
		}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = nm(), vs()
		return func(n namer) any { c := *in; c.TableName = str(n.T(t.name)); return &c }
	case k < 62:
		in := &dynamodb.GetItemInput{Key: g.key(t), ConsistentRead: aws.Bool(g.chance(0.5)), ReturnConsumedCapacity: g.rcc()}
		if g.chance(0.5) {
			in.ProjectionExpression = str(g.projection(&e))
		}
		in.ExpressionAttributeNames = nm()
		return func(n namer) any { c := *in; c.TableName = str(n.T(t.name)); return &c }
	case k < 80:
		return g.query(t)
	case k < 90:
		in := &dynamodb.ScanInput{ReturnConsumedCapacity: g.rcc()}
		if t.gsiName != "" && g.chance(0.3) {
			in.IndexName = str(t.gsiName)
		} else if t.lsiName != "" && g.chance(0.3) {
			in.IndexName = str(t.lsiName)
		}
		if g.chance(0.5) {
			in.FilterExpression = str(g.cond(&e, 0))
		}
		if g.chance(0.3) {
			in.Limit = aws.Int32(int32(1 + g.r.IntN(5)))
		}
		if g.chance(0.2) {
			total := 1 + g.r.IntN(4)
			in.TotalSegments, in.Segment = aws.Int32(int32(total)), aws.Int32(int32(g.r.IntN(total)))
		}
		if g.chance(0.2) {
			in.Select = types.SelectCount
		}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = nm(), vs()
		// Which items a page or a segment holds is the implementation's
		// choice: compare all pages and segments together.
		return func(n namer) any { c := *in; c.TableName = str(n.T(t.name)); return &pagedScan{&c} }
	case k < 94:
		var reqs []types.WriteRequest
		seen := map[string]bool{}
		for range 1 + g.r.IntN(5) {
			var wr types.WriteRequest
			var key item
			if g.chance(0.7) {
				x := g.item(t)
				key = keyOf(t, x)
				wr.PutRequest = &types.PutRequest{Item: x}
				t.remember(x)
			} else {
				key = g.key(t)
				wr.DeleteRequest = &types.DeleteRequest{Key: key}
			}
			if ks := compact(canonAV(&types.AttributeValueMemberM{Value: key}, func(s string) string { return s })); !seen[ks] {
				seen[ks] = true
				reqs = append(reqs, wr)
				g.wKeys = append(g.wKeys, key)
			}
		}
		rcc := g.rcc()
		return func(n namer) any {
			return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{n.T(t.name): reqs}, ReturnConsumedCapacity: rcc}
		}
	case k < 97:
		var keys []item
		seen := map[string]bool{}
		for range 1 + g.r.IntN(6) {
			key := g.key(t)
			if ks := compact(canonAV(&types.AttributeValueMemberM{Value: key}, func(s string) string { return s })); !seen[ks] {
				seen[ks] = true
				keys = append(keys, key)
			}
		}
		rcc := g.rcc()
		return func(n namer) any {
			return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{n.T(t.name): {Keys: keys, ConsistentRead: aws.Bool(true)}}, ReturnConsumedCapacity: rcc}
		}
	default:
		// A transaction of a few writes on distinct keys.
		type act struct {
			kind int
			key  item
			x    item
			cond string
			e    expr
		}
		var acts []act
		seen := map[string]bool{}
		for range 1 + g.r.IntN(4) {
			a := act{kind: g.r.IntN(4)}
			if a.kind == 0 {
				a.x = g.item(t)
				a.key = keyOf(t, a.x)
			} else {
				a.key = g.key(t)
			}
			if g.chance(0.5) || a.kind == 3 {
				a.cond = g.cond(&a.e, 1)
			}
			ks := compact(canonAV(&types.AttributeValueMemberM{Value: a.key}, func(s string) string { return s }))
			if seen[ks] {
				continue
			}
			seen[ks] = true
			acts = append(acts, a)
			g.wKeys = append(g.wKeys, a.key)
		}
		upd := make([]string, len(acts))
		for i := range acts {
			if acts[i].kind == 1 {
				upd[i] = g.update(&acts[i].e)
			}
		}
		rvf := types.ReturnValuesOnConditionCheckFailure("")
		if g.chance(0.5) {
			rvf = types.ReturnValuesOnConditionCheckFailureAllOld
		}
		return func(n namer) any {
			in := &dynamodb.TransactWriteItemsInput{}
			for i, a := range acts {
				var cond *string
				if a.cond != "" {
					cond = str(a.cond)
				}
				names, vals := a.e.names, a.e.vals
				tn := str(n.T(t.name))
				var w types.TransactWriteItem
				switch a.kind {
				case 0:
					w.Put = &types.Put{TableName: tn, Item: a.x, ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rvf}
				case 1:
					w.Update = &types.Update{TableName: tn, Key: a.key, UpdateExpression: str(upd[i]), ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rvf}
				case 2:
					w.Delete = &types.Delete{TableName: tn, Key: a.key, ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rvf}
				default:
					w.ConditionCheck = &types.ConditionCheck{TableName: tn, Key: a.key, ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rvf}
				}
				in.TransactItems = append(in.TransactItems, w)
			}
			return in
		}
	}
}

func keyOf(t *genTable, x item) item {
	k := it(t.hash, x[t.hash])
	if t.rng != "" {
		k[t.rng] = x[t.rng]
	}
	return k
}

// remember records a written key for later requests.
func (t *genTable) remember(x item) {
	if len(t.keys) < 64 {
		t.keys = append(t.keys, keyOf(t, x))
	}
}

// query draws a Query on the table or one of its indexes.
func (g *generator) query(t *genTable) func(n namer) any {
	var e expr
	hash, ht, rng, rt, index := t.hash, t.ht, t.rng, t.rt, ""
	switch {
	case t.gsiName != "" && g.chance(0.35):
		hash, ht, rng, rt, index = t.gh, t.ght, t.gr, t.grt, t.gsiName
	case t.lsiName != "" && g.chance(0.35):
		rng, rt, index = t.lr, t.lrt, t.lsiName
	}
	hv := g.scalar(ht)
	if index == "" && len(t.keys) > 0 && g.chance(0.7) {
		hv = gpick(g, t.keys)[t.hash]
	}
	kc := e.name(g, hash) + " = " + e.value(hv)
	if rng != "" && g.chance(0.6) {
		r := e.name(g, rng)
		switch g.r.IntN(4) {
		case 0:
			kc += fmt.Sprintf(" AND %s %s %s", r, gpick(g, []string{"=", "<", "<=", ">", ">="}), e.value(g.scalar(rt)))
		case 1:
			lo, hi := g.scalar(rt), g.scalar(rt)
			kc += fmt.Sprintf(" AND %s BETWEEN %s AND %s", r, e.value(lo), e.value(hi))
		case 2:
			if rt != tN {
				kc += fmt.Sprintf(" AND begins_with(%s, %s)", r, e.value(g.scalar(rt)))
			}
		}
	}
	in := &dynamodb.QueryInput{KeyConditionExpression: str(kc), ReturnConsumedCapacity: g.rcc()}
	if index != "" {
		in.IndexName = str(index)
	}
	if g.chance(0.3) {
		in.FilterExpression = str(g.cond(&e, 1))
	}
	if g.chance(0.3) {
		in.ScanIndexForward = aws.Bool(false)
	}
	if g.chance(0.3) {
		in.Limit = aws.Int32(int32(1 + g.r.IntN(4)))
	}
	if g.chance(0.15) {
		in.Select = types.SelectCount
	}
	if g.chance(0.2) && in.Select == "" {
		in.ProjectionExpression = str(g.projection(&e))
	}
	if index == "" && g.chance(0.3) {
		in.ConsistentRead = aws.Bool(true)
	}
	if len(e.names) > 0 {
		in.ExpressionAttributeNames = e.names
	}
	if len(e.vals) > 0 {
		in.ExpressionAttributeValues = e.vals
	}
	if index != "" && in.Limit != nil {
		// Which of the items that tie on the index's key a page holds is
		// the implementation's choice: compare all pages together.
		return func(n namer) any { c := *in; c.TableName = str(n.T(t.name)); return &pagedQuery{&c} }
	}
	return func(n namer) any { c := *in; c.TableName = str(n.T(t.name)); return &c }
}

// runGenerated sends count generated requests to both sides, after
// creating the generated tables, and records divergences in tl.
func runGenerated(ctx context.Context, t *testing.T, ref, sub side, seed uint64, count int, tl *tally) {
	g := &generator{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	rn, sn := prefixes("g", 0)
	var cleanupSteps []step
	defer func() { cleanup(ref, rn, tcase{steps: cleanupSteps}); cleanup(sub, sn, tcase{steps: cleanupSteps}) }()
	do := func(id string, build func(n namer) any) bool {
		rin, sin := build(rn), build(sn)
		ra := send(ctx, ref, rn, rin, false)
		sa := send(ctx, sub, sn, sin, false)
		tl.mu.Lock()
		tl.reqs++
		if tl.outcomes == nil {
			tl.outcomes = map[string]int{}
		}
		tl.outcomes[ra.code]++
		tl.mu.Unlock()
		if !agree(ra, sa, "") {
			tl.add(divergence{id: id, seed: seed, request: describeRequest(rin, rn), ref: ra, sub: sa})
			return false
		}
		return true
	}
	for i := range 4 {
		tb := g.table(i)
		g.tables = append(g.tables, tb)
		in := func(n namer) any { return g.createInput(n, tb) }
		// Draw the projection once for both sides.
		rin := g.createInput(rn, tb)
		build := func(n namer) any {
			c := *rin
			c.TableName = str(n.T(tb.name))
			return &c
		}
		_ = in
		cleanupSteps = append(cleanupSteps, ok(build))
		do(fmt.Sprintf("gen/CreateTable/%d", i), build)
	}
	for i := range count {
		if ctx.Err() != nil {
			t.Errorf("generator stopped after %d requests: %v", i, ctx.Err())
			return
		}
		build := g.request()
		if !do(fmt.Sprintf("gen/%s/%d", opName(build(rn)), i), build) && len(g.wKeys) > 0 {
			// The sides may now hold different items: copy the
			// reference's to the subject, so that one divergence does not
			// cascade into every later read of these keys.
			resync(ctx, t, ref, sub, rn, sn, g.wTable, g.wKeys)
		}
	}
	// Finally the whole content of every table, to catch writes that
	// differed silently.
	for _, tb := range g.tables {
		do("gen/final-scan/"+tb.name, func(n namer) any {
			return &dynamodb.ScanInput{TableName: str(n.T(tb.name)), ConsistentRead: aws.Bool(true)}
		})
	}
}

// resync makes the subject's items at keys of table t equal to the
// reference's.
func resync(ctx context.Context, t *testing.T, ref, sub side, rn, sn namer, tb *genTable, keys []item) {
	for _, key := range keys {
		out, err := ref.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: str(rn.T(tb.name)), Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Errorf("resync: read the reference: %v", err)
			return
		}
		if out.Item != nil {
			_, err = sub.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: str(sn.T(tb.name)), Item: out.Item})
		} else {
			_, err = sub.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: str(sn.T(tb.name)), Key: key})
		}
		if err != nil {
			t.Errorf("resync: write the subject: %v", err)
			return
		}
	}
}
