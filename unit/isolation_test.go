package unit_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// isoAccount is an account of the isolation tests. Every write appends
// its writer's stamp to Hist and sets Stamp to it, so the item carries the
// order of the writes it went through: len(Hist) is its rank, and equals
// Version. Status ("open", "closed") is changed by the writes and is the
// hash key of a global index.
type isoAccount struct {
	Bank    string   `dynamo:"bank,hash"`
	ID      string   `dynamo:"id,range" index:"iso-status,range"`
	Balance int64    `dynamo:"balance"`
	Stamp   string   `dynamo:"stamp"`
	Status  string   `dynamo:"status" index:"iso-status,hash"`
	Hist    []string `dynamo:"hist"`
	Version int64    `dynamo:"v,version"`
}

// isoEntry is a unit's entry in the ledger: every unit of the workload
// creates one, so the ledger says which units committed.
type isoEntry struct {
	ID      string `dynamo:"id,hash"`
	Version int64  `dynamo:"v,version"`
}

const (
	isoIndex     = "iso-status"
	isoLockAttr  = "optimist_unit" // the attribute of a unit's lock in an item (see the package doc)
	isoBalance   = 100
	isoLedgerKey = "L:"
)

type isoEnv struct {
	c      *dynamodb.Client
	coord  string
	accts  *mapper.Table[isoAccount]
	ledger *mapper.Table[isoEntry]
}

// newIsoEnv creates the tables: accounts (with the index iso-status, of
// projection ALL, or INCLUDE of the struct's attributes when include is
// set), the ledger and the coordinator.
func newIsoEnv(t *testing.T, include bool) *isoEnv {
	t.Helper()
	ctx := context.Background()
	c := dynamolocal.New(t).Client()
	coord := ddbtest.TableName(t) + "-coord"
	require.NoError(t, unit.CreateTable(ctx, c, coord))
	ddbtest.DeleteAtCleanup(t, c, coord)
	name := ddbtest.TableName(t) + "-accts"
	var opts []mapper.CreateOption
	if include {
		opts = append(opts, mapper.ProjectInclude(isoIndex, "balance", "stamp", "hist", "v"))
	}
	require.NoError(t, mapper.CreateTable[isoAccount](ctx, c, name, opts...))
	ddbtest.DeleteAtCleanup(t, c, name)
	accts, err := mapper.NewTable[isoAccount](c, name)
	require.NoError(t, err)
	ledger, err := mapper.NewTable[isoEntry](c, ddbtest.CreateTable(t, c, "id", types.ScalarAttributeTypeS, "", ""))
	require.NoError(t, err)
	return &isoEnv{c: c, coord: coord, accts: accts, ledger: ledger}
}

// isoCtx returns a context that ends after d or with the test.
func isoCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// isoRaw returns every item of a table as stored.
func isoRaw(ctx context.Context, c *dynamodb.Client, table string) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	in := &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)}
	for {
		out, err := c.Scan(ctx, in)
		if err != nil {
			return nil, err
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return items, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func isoObserve(a *isoAccount) isoObs {
	return isoObs{Key: a.ID, Present: true, Rank: len(a.Hist), HistHash: isoHash(a.Hist), Stamp: a.Stamp,
		Balance: a.Balance, Status: a.Status, Version: a.Version}
}

// isoConfig sizes the workload.
type isoConfig struct {
	stable, slots           int // accounts that always exist; renamed accounts
	units, readers, writers int // goroutines
	duration, lease         time.Duration
	crashShare, rollShare   float64
}

func isoConfigFromEnv() isoConfig {
	cfg := isoConfig{stable: 44, slots: 6, units: 4, readers: 4, writers: 1,
		duration: 1500 * time.Millisecond, lease: 500 * time.Millisecond, crashShare: 0.25, rollShare: 0.1}
	if ddbtest.Long() {
		cfg.stable, cfg.slots, cfg.units, cfg.readers, cfg.writers = 64, 8, 6, 6, 2
		cfg.duration = 4 * time.Minute
	}
	if s := os.Getenv("OPTIMIST_ISO_SECONDS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			cfg.duration = time.Duration(n) * time.Second
		}
	}
	return cfg
}

// isoWorld is the workload and its history.
type isoWorld struct {
	*isoEnv
	t    *testing.T
	cfg  isoConfig
	opts []unit.Option

	stable []string       // ids of the accounts that always exist
	hint   []atomic.Int64 // per slot, a generation known to exist or have existed
	n      atomic.Int64

	// crash schedule: protocol writes after which crash units die
	crashK  []int64
	crashAt atomic.Int64

	mu      sync.Mutex
	writers map[string]*isoWriter
	reads   []*isoRead
	deleted map[string]map[string][]string // key -> deleter -> the key's history up to and with its deletion
	stats   map[string]int
	crashes map[int64]string // k -> what happened
	notes   []isoNote
}

func isoStableID(i int) string           { return fmt.Sprintf("s%02d", i) }
func isoSlotID(slot int, g int64) string { return fmt.Sprintf("v%dg%03d", slot, g) }

// isoBank puts accounts in two partitions, so that a Query reads many.
func isoBank(id string) string {
	var n int
	for _, r := range id {
		n += int(r)
	}
	return "b" + strconv.Itoa(n%2)
}

func isoKeyOf(id string) isoAccount { return isoAccount{Bank: isoBank(id), ID: id} }

func (w *isoWorld) stat(s string) {
	w.mu.Lock()
	w.stats[s]++
	w.mu.Unlock()
}

func (w *isoWorld) record(r *isoRead) {
	w.mu.Lock()
	w.reads = append(w.reads, r)
	w.mu.Unlock()
}

func (w *isoWorld) note(kind, format string, args ...any) {
	w.mu.Lock()
	w.notes = append(w.notes, isoNote{kind, fmt.Sprintf(format, args...)})
	w.mu.Unlock()
}

// universe returns the keys a reader reads: the stable accounts and, for
// each slot, the generation of its hint and the next (of one bank, or all
// for "").
func (w *isoWorld) universe(bank string) []string {
	var keys []string
	for _, id := range w.stable {
		if bank == "" || isoBank(id) == bank {
			keys = append(keys, id)
		}
	}
	for s := range w.hint {
		g := w.hint[s].Load()
		for _, id := range []string{isoSlotID(s, g), isoSlotID(s, g+1)} {
			if bank == "" || isoBank(id) == bank {
				keys = append(keys, id)
			}
		}
	}
	return keys
}

func (w *isoWorld) seed(ctx context.Context) error {
	var items []*isoAccount
	if w.stable == nil {
		for i := range w.cfg.stable {
			w.stable = append(w.stable, isoStableID(i))
		}
	}
	ids := slices.Clone(w.stable)
	for s := range w.cfg.slots {
		ids = append(ids, isoSlotID(s, 0))
	}
	seed := &isoWriter{ID: "seed", Plain: true, MustCommit: true, Note: "seed", Effects: map[string]isoEffect{}}
	for _, id := range ids {
		a := isoKeyOf(id)
		a.Balance, a.Stamp, a.Status, a.Hist = isoBalance, "seed", "open", []string{"seed"}
		items = append(items, &a)
		seed.Effects[id] = isoEffect{Status: "open", Set: true, Balance: isoBalance}
	}
	w.writers["seed"] = seed
	return w.accts.PutAll(ctx, items, mapper.Unversioned())
}

// --- readers ---

func (w *isoWorld) readLoop(ctx context.Context, rng *rand.Rand, stop <-chan struct{}) {
	kinds := []func(context.Context, *rand.Rand){
		w.readGet, w.readGetAll, w.readQuery, w.readQueryFilter, w.readScan, w.readScanFilter,
		w.readScanParallel, w.readTxnAll, w.readTxnSome, w.readIndex,
	}
	for {
		select {
		case <-stop:
			return
		default:
		}
		kinds[rng.IntN(len(kinds))](ctx, rng)
	}
}

func (w *isoWorld) errNote(r *isoRead, err error) {
	r.Notes = append(r.Notes, isoNote{"read-error", err.Error()})
}

func (w *isoWorld) readGet(ctx context.Context, rng *rand.Rand) {
	keys := w.universe("")
	id := keys[rng.IntN(len(keys))]
	r := &isoRead{Kind: "Get", Start: isoNow()}
	a, err := w.accts.Get(ctx, isoKeyOf(id))
	r.End = isoNow()
	switch {
	case err == nil:
		r.Obs = append(r.Obs, isoObserve(a))
	case errors.Is(err, mapper.ErrNotFound):
		r.Obs = append(r.Obs, isoObs{Key: id})
	default:
		w.errNote(r, err)
	}
	w.record(r)
}

func (w *isoWorld) readGetAll(ctx context.Context, rng *rand.Rand) {
	all := w.universe("")
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	keys := all[:min(len(all), 12+rng.IntN(12))]
	var ks []isoAccount
	for _, id := range keys {
		ks = append(ks, isoKeyOf(id))
	}
	r := &isoRead{Kind: "GetAll", Start: isoNow()}
	got, err := w.accts.GetAll(ctx, ks)
	r.End = isoNow()
	missing := map[int]bool{}
	var me *mapper.MissingError
	switch {
	case errors.As(err, &me):
		for _, i := range me.Keys {
			missing[i] = true
		}
	case err != nil:
		w.errNote(r, err)
		w.record(r)
		return
	}
	for i, a := range got {
		switch {
		case a != nil:
			r.Obs = append(r.Obs, isoObserve(a))
		case missing[i]:
			r.Obs = append(r.Obs, isoObs{Key: keys[i]})
		default:
			r.Notes = append(r.Notes, isoNote{"getall-nil-without-error", keys[i] + " came back nil, not listed in a MissingError"})
		}
	}
	w.record(r)
}

// collect runs a Query or Scan and records what it returned; the keys of
// universe it did not return are absent (pred == "") or did not match.
func (w *isoWorld) collect(kind, pred string, universe []string, seq func(yield func(*isoAccount, error) bool)) {
	r := &isoRead{Kind: kind, Pred: pred, Start: isoNow()}
	seen := map[string]bool{}
	var err error
	seq(func(a *isoAccount, e error) bool {
		if e != nil {
			err = e
			return false
		}
		if seen[a.ID] {
			r.Notes = append(r.Notes, isoNote{"duplicate-in-read", a.ID + " returned twice"})
		}
		seen[a.ID] = true
		r.Obs = append(r.Obs, isoObserve(a))
		return true
	})
	r.End = isoNow()
	if err != nil {
		w.errNote(r, err)
		r.Obs = nil
		w.record(r)
		return
	}
	for _, id := range universe {
		if seen[id] {
			continue
		}
		if pred == "" {
			r.Obs = append(r.Obs, isoObs{Key: id})
		} else {
			r.Neg = append(r.Neg, id)
		}
	}
	w.record(r)
}

func isoBankOf(rng *rand.Rand) string { return "b" + strconv.Itoa(rng.IntN(2)) }

func isoStatusOf(rng *rand.Rand) string {
	if rng.IntN(2) == 0 {
		return "open"
	}
	return "closed"
}

func isoIs(status string) expression.ConditionBuilder {
	return expression.Name("status").Equal(expression.Value(status))
}

func (w *isoWorld) readQuery(ctx context.Context, rng *rand.Rand) {
	bank := isoBankOf(rng)
	u := w.universe(bank)
	w.collect("Query", "", u, w.accts.Query(ctx, expression.Key("bank").Equal(expression.Value(bank)),
		mapper.ConsistentRead(true), mapper.PageSize(7)))
}

func (w *isoWorld) readQueryFilter(ctx context.Context, rng *rand.Rand) {
	bank, st := isoBankOf(rng), isoStatusOf(rng)
	u := w.universe(bank)
	w.collect("Query+Filter", st, u, w.accts.Query(ctx, expression.Key("bank").Equal(expression.Value(bank)),
		mapper.ConsistentRead(true), mapper.PageSize(7), mapper.Filter(isoIs(st))))
}

func (w *isoWorld) readScan(ctx context.Context, _ *rand.Rand) {
	u := w.universe("")
	w.collect("Scan", "", u, w.accts.Scan(ctx, mapper.ConsistentRead(true), mapper.PageSize(10)))
}

func (w *isoWorld) readScanFilter(ctx context.Context, rng *rand.Rand) {
	st := isoStatusOf(rng)
	u := w.universe("")
	w.collect("Scan+Filter", st, u, w.accts.Scan(ctx, mapper.ConsistentRead(true), mapper.PageSize(10), mapper.Filter(isoIs(st))))
}

func (w *isoWorld) readScanParallel(ctx context.Context, _ *rand.Rand) {
	u := w.universe("")
	w.collect("Scan(Segments)", "", u, w.accts.Scan(ctx, mapper.ConsistentRead(true), mapper.PageSize(10), mapper.Segments(3)))
}

func (w *isoWorld) readIndex(ctx context.Context, rng *rand.Rand) {
	st := isoStatusOf(rng)
	u := w.universe("")
	w.collect("Query(index)", st, u, w.accts.Query(ctx, expression.Key("status").Equal(expression.Value(st)),
		mapper.Index(isoIndex), mapper.PageSize(9)))
}

func (w *isoWorld) txnGet(ctx context.Context, kind string, keys []string, all bool) {
	dst := make([]*isoAccount, len(keys))
	ops := make([]txn.GetOp, len(keys))
	for i, id := range keys {
		ops[i] = w.accts.GetOp(isoKeyOf(id), &dst[i])
	}
	r := &isoRead{Kind: kind, Snapshot: true, AllAccounts: all, Start: isoNow()}
	err := txn.Get(ctx, w.c, ops...)
	r.End = isoNow()
	if err != nil {
		w.errNote(r, err)
		w.record(r)
		return
	}
	for i, a := range dst {
		if a == nil {
			r.Obs = append(r.Obs, isoObs{Key: keys[i]})
		} else {
			r.Obs = append(r.Obs, isoObserve(a))
		}
	}
	w.record(r)
}

func (w *isoWorld) readTxnAll(ctx context.Context, _ *rand.Rand) {
	w.txnGet(ctx, "txn.Get(all)", w.universe(""), true)
}

func (w *isoWorld) readTxnSome(ctx context.Context, rng *rand.Rand) {
	all := w.universe("")
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	w.txnGet(ctx, "txn.Get", all[:6+rng.IntN(6)], false)
}

// --- plain writers ---

// plainLoop reads an account and writes another (a read-then-write
// pattern, as the (A1, X0) anomaly needs), with plain mapper calls.
func (w *isoWorld) plainLoop(ctx context.Context, rng *rand.Rand, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(time.Duration(5+rng.IntN(20)) * time.Millisecond): // wall clock: TestRealClockReaderIsolation's pace
		}
		w.readGet(ctx, rng)
		id := w.stable[rng.IntN(len(w.stable))]
		st := isoStatusOf(rng)
		p := &isoWriter{ID: fmt.Sprintf("p%04d", w.n.Add(1)), Plain: true, End: isoNever, Note: "plain Update",
			Effects: map[string]isoEffect{id: {Status: st}}}
		p.Start = isoNow()
		_, err := w.accts.Update(ctx, isoKeyOf(id), update.Add("balance", 0).Append("hist", []string{p.ID}).Set("stamp", p.ID).Set("status", st))
		end := isoNow()
		switch {
		case err == nil:
			p.End, p.MustCommit = end, true
			w.stat("plain write applied")
		case errors.Is(err, mapper.ErrLocked) || version.IsConflict(err) || errors.Is(err, mapper.ErrConditionFailed):
			p.MustNotCommit = true
			w.stat("plain write refused (locked)")
		default:
			p.Note += ": " + err.Error()
			w.stat("plain write failed")
		}
		w.mu.Lock()
		w.writers[p.ID] = p
		w.mu.Unlock()
	}
}

// --- units ---

type isoShape struct{ locked, readOnly, checked, blind int }

// isoCrashShape is the shape of every crashing unit (fixed, so that a clean
// run tells how many protocol writes it makes).
var isoCrashShape = isoShape{locked: 3, readOnly: 2, checked: 1, blind: 2}

type isoMode int

const (
	isoCommit isoMode = iota
	isoRollback
	isoCrash
)

func (w *isoWorld) unitLoop(ctx context.Context, rng *rand.Rand, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		x := rng.Float64()
		switch {
		case x < w.cfg.crashShare:
			i := w.crashAt.Add(1) - 1
			k := w.crashK[int(i)%len(w.crashK)]
			w.runUnit(ctx, rng, isoCrash, k, isoCrashShape, false)
		case x < w.cfg.crashShare+w.cfg.rollShare:
			w.runUnit(ctx, rng, isoRollback, -1, w.randomShape(rng), rng.IntN(3) == 0)
		default:
			w.runUnit(ctx, rng, isoCommit, -1, w.randomShape(rng), rng.IntN(3) == 0)
		}
	}
}

func (w *isoWorld) randomShape(rng *rand.Rand) isoShape {
	return isoShape{locked: 1 + rng.IntN(4), readOnly: rng.IntN(3), checked: rng.IntN(3), blind: rng.IntN(4)}
}

// lockRead is unit.Get, recorded as a read.
func (w *isoWorld) lockRead(ctx context.Context, u *unit.Unit, id string) (*isoAccount, error) {
	r := &isoRead{Kind: "unit.Get", Start: isoNow()}
	a, err := unit.Get(ctx, u, w.accts, isoKeyOf(id))
	r.End = isoNow()
	switch {
	case err == nil:
		r.Obs = append(r.Obs, isoObserve(a))
	case errors.Is(err, mapper.ErrNotFound):
		r.Obs = append(r.Obs, isoObs{Key: id})
	default:
		return nil, err
	}
	w.record(r)
	return a, err
}

// runUnit runs one unit: locking reads, reads, checks and writes, moving
// money between accounts so that the total stays the same, and a ledger
// entry; then Commit (or Rollback, or a crash at protocol write k).
func (w *isoWorld) runUnit(ctx context.Context, rng *rand.Rand, mode isoMode, k int64, shape isoShape, rename bool) {
	stamp := fmt.Sprintf("u%04d", w.n.Add(1))
	cc := newIsoClient(w.c, w.coord)
	cc.limit = k
	wr := &isoWriter{ID: stamp, End: isoNever, Effects: map[string]isoEffect{}}
	defer func() {
		w.mu.Lock()
		w.writers[stamp] = wr
		w.mu.Unlock()
	}()
	// fail ends the unit before Commit: it did not commit, whatever happens.
	fail := func(u *unit.Unit, what string, err error) {
		wr.MustNotCommit = true
		wr.Note = what + ": " + err.Error()
		switch {
		case cc.dead.Load():
			w.stat("unit crashed before Commit")
			w.crashed(k, "before Commit")
		case errors.Is(err, unit.ErrLocked):
			w.stat("unit failed before Commit: locked")
		default:
			w.stat("unit failed before Commit: " + what)
		}
		if u != nil && !cc.dead.Load() {
			_ = u.Rollback(ctx)
		}
	}
	u, err := unit.Begin(ctx, cc, append([]unit.Option{unit.Coordinator(w.coord)}, w.opts...)...)
	if err != nil {
		fail(nil, "Begin", err)
		return
	}
	perm := rng.Perm(len(w.stable))
	take := func(n int) []string {
		var ids []string
		for _, i := range perm[:n] {
			ids = append(ids, w.stable[i])
		}
		perm = perm[n:]
		return ids
	}
	locked, readOnly, checked, blind := take(shape.locked), take(shape.readOnly), take(shape.checked), take(shape.blind)
	reads := append(slices.Clone(locked), readOnly...)
	sort.Strings(reads) // in key order: two units meet at their first common item
	got := map[string]*isoAccount{}
	for _, id := range reads {
		a, err := w.lockRead(ctx, u, id)
		if err != nil {
			fail(u, "unit.Get", err)
			return
		}
		got[id] = a
	}
	var ops []txn.Op
	for _, id := range checked {
		r := &isoRead{Kind: "Get", Start: isoNow()}
		a, err := w.accts.Get(ctx, isoKeyOf(id))
		r.End = isoNow()
		if err != nil {
			fail(u, "Get for a check", err)
			return
		}
		r.Obs = append(r.Obs, isoObserve(a))
		w.record(r)
		ops = append(ops, w.accts.CheckOp(*a))
	}
	var old *isoAccount
	var newID string
	slot := -1
	if rename {
		slot = rng.IntN(len(w.hint))
		for g, h := w.hint[slot].Load(), w.hint[slot].Load(); g < h+3 && old == nil; g++ {
			a, err := w.lockRead(ctx, u, isoSlotID(slot, g))
			switch {
			case err == nil:
				old, newID = a, isoSlotID(slot, g+1)
			case !errors.Is(err, mapper.ErrNotFound):
				fail(u, "unit.Get of a slot", err)
				return
			}
		}
		if old != nil {
			if _, err := w.lockRead(ctx, u, newID); !errors.Is(err, mapper.ErrNotFound) {
				fail(u, "unit.Get of the next generation", fmt.Errorf("%s: %v", newID, err))
				return
			}
		}
	}
	// Deltas that sum to zero over the items written.
	n := len(locked) + len(blind)
	if old != nil {
		n++
	}
	deltas := make([]int64, n)
	var sum int64
	for i := range n - 1 {
		deltas[i] = int64(rng.IntN(41) - 20)
		sum += deltas[i]
	}
	if n > 0 {
		deltas[n-1] = -sum
	}
	for i, id := range locked {
		a := got[id]
		a.Balance += deltas[i]
		a.Stamp, a.Status, a.Hist = stamp, isoStatusOf(rng), append(a.Hist, stamp)
		ops = append(ops, w.accts.PutOp(a))
		wr.Effects[id] = isoEffect{Status: a.Status, Set: true, Balance: a.Balance}
	}
	for i, id := range blind {
		d, st := deltas[len(locked)+i], isoStatusOf(rng)
		ops = append(ops, w.accts.UpdateOp(isoKeyOf(id), update.Add("balance", d).Append("hist", []string{stamp}).Set("stamp", stamp).Set("status", st)))
		wr.Effects[id] = isoEffect{Status: st, Delta: d}
	}
	if old != nil {
		na := isoKeyOf(newID)
		na.Balance, na.Stamp, na.Status, na.Hist = old.Balance+deltas[n-1], stamp, isoStatusOf(rng), []string{stamp}
		ops = append(ops, w.accts.DeleteOp(*old), w.accts.PutOp(&na))
		wr.Effects[old.ID] = isoEffect{Delete: true}
		wr.Effects[newID] = isoEffect{Status: na.Status, Set: true, Balance: na.Balance}
		w.mu.Lock()
		if w.deleted[old.ID] == nil {
			w.deleted[old.ID] = map[string][]string{}
		}
		w.deleted[old.ID][stamp] = append(slices.Clone(old.Hist), stamp)
		w.mu.Unlock()
	}
	ops = append(ops, w.ledger.PutOp(&isoEntry{ID: stamp}))
	wr.Effects[isoLedgerKey+stamp] = isoEffect{Set: true}
	if err := u.Add(ops...); err != nil {
		fail(u, "Add", err)
		return
	}
	if mode == isoRollback {
		wr.MustNotCommit, wr.Note = true, "rolled back"
		if err := u.Rollback(ctx); err != nil {
			wr.Note += ": " + err.Error()
		}
		w.stat("unit rolled back")
		return
	}
	begin := isoNow()
	err = u.Commit(ctx)
	end := isoNow()
	sent, acked, sentAt, retAt := cc.commitPoint()
	wr.Start = begin
	if sent {
		wr.Start = sentAt
	}
	if err == nil {
		wr.End, wr.MustCommit = end, true
	}
	if acked {
		wr.End, wr.MustCommit = min(wr.End, retAt), true
	}
	dead := cc.dead.Load()
	switch {
	case err == nil && dead:
		wr.Note = "Commit returned nil, then crashed"
		w.stat("unit committed, crashed after the commit point")
		w.crashed(k, "after the commit point")
	case err == nil:
		wr.Note = "committed"
		w.stat("unit committed")
		if old != nil {
			for {
				h := w.hint[slot].Load()
				g, _ := strconv.ParseInt(newID[len(newID)-3:], 10, 64)
				if g <= h || w.hint[slot].CompareAndSwap(h, g) {
					break
				}
			}
		}
	case acked:
		wr.Note = "commit point acknowledged, Commit failed: " + err.Error()
		w.note("commit-error-after-commit-point", "%s: the commit point was acknowledged but Commit returned %v", stamp, err)
		w.crashed(k, "after the commit point")
	case dead && !sent:
		wr.MustNotCommit = true
		wr.Note = "crashed before its commit point: " + err.Error()
		w.stat("unit crashed before the commit point")
		w.crashed(k, "before the commit point")
	case errors.Is(err, version.ErrUnknownOutcome):
		wr.Note = "unknown outcome: " + err.Error()
		w.stat("unit with an unknown outcome")
		if dead {
			w.crashed(k, "at an unknown point")
		}
	case !sent:
		wr.MustNotCommit = true
		wr.Note = "Commit failed: " + err.Error()
		w.stat("unit rolled back by Commit")
	default:
		wr.Note = "Commit failed at its commit point: " + err.Error()
		w.stat("unit refused at its commit point")
	}
}

// crashCount is how many crash points units reached so far.
func (w *isoWorld) crashCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.crashes)
}

func (w *isoWorld) crashed(k int64, where string) {
	if k < 0 {
		return
	}
	w.mu.Lock()
	if _, ok := w.crashes[k]; !ok {
		w.crashes[k] = where
	}
	w.mu.Unlock()
}

func (w *isoWorld) recoverLoop(ctx context.Context, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		n, err := unit.Recover(ctx, w.c, w.coord)
		if err != nil && ctx.Err() == nil {
			w.note("recover-error", "%v", err)
		}
		if n == 0 {
			time.Sleep(50 * time.Millisecond) // wall clock: TestRealClockReaderIsolation's pace
		}
	}
}

// calibrate runs one unit of the crash shape on a quiet table and returns
// how many protocol writes it made and which one was the commit point.
func (w *isoWorld) calibrate(ctx context.Context) (total, commit int64, err error) {
	stamp := "calibration"
	cc := newIsoClient(w.c, w.coord)
	u, err := unit.Begin(ctx, cc, append([]unit.Option{unit.Coordinator(w.coord)}, w.opts...)...)
	if err != nil {
		return 0, 0, err
	}
	ids := w.stable
	s := isoCrashShape
	var ops []txn.Op
	for _, id := range ids[:s.locked+s.readOnly] {
		a, err := unit.Get(ctx, u, w.accts, isoKeyOf(id))
		if err != nil {
			return 0, 0, err
		}
		if len(ops) < s.locked {
			a.Stamp, a.Hist = stamp, append(a.Hist, stamp)
			ops = append(ops, w.accts.PutOp(a))
		}
	}
	next := ids[s.locked+s.readOnly:]
	for _, id := range next[:s.checked] {
		a, err := w.accts.Get(ctx, isoKeyOf(id))
		if err != nil {
			return 0, 0, err
		}
		ops = append(ops, w.accts.CheckOp(*a))
	}
	for _, id := range next[s.checked : s.checked+s.blind] {
		ops = append(ops, w.accts.UpdateOp(isoKeyOf(id), update.Add("balance", 0).Append("hist", []string{stamp}).Set("stamp", stamp).Set("status", "open")))
	}
	ops = append(ops, w.ledger.PutOp(&isoEntry{ID: stamp}))
	if err := u.Add(ops...); err != nil {
		return 0, 0, err
	}
	if err := u.Commit(ctx); err != nil {
		return 0, 0, err
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.cpCount != 1 {
		return 0, 0, fmt.Errorf("found %d commit-point writes in a unit (the hook in isoClient no longer recognises the commit point)", cc.cpCount)
	}
	return cc.writes.Load(), cc.cpIndex, nil
}

// TestRealClockReaderIsolation runs units of work that move money between accounts
// (committing, rolling back, crashing at every protocol write in turn),
// plain writers, and readers of every kind (Get, GetAll, Query and Scan
// with and without a filter, a parallel Scan, a Query of a global index,
// txn.Get of some accounts and of all of them), with Recover running, then
// checks the history with isoCheck: no read goes back in time, a unit is
// seen all or nothing, snapshots are states the database held, nothing of
// a unit that did not commit is ever seen and every unit that committed is
// there; at the end no lock is left, the total is the same, and every
// item takes a plain write.
//
// It runs on the wall clock against the shared server (DynamoDB Local
// with OPTIMIST_ENGINE=dynamodb-local): the one unit workload that shows
// units, leases and Recover on the real clock, where every other test of
// leases runs in a testing/synctest bubble. It runs for three leases
// (1.5 seconds: live units heartbeat through them, crashed ones are
// recovered once theirs ran out), and on until a unit crashed.
// OPTIMIST_LONG=1 (make test-long) runs it as a soak (4 minutes, every
// crash point in turn) on more accounts and goroutines;
// OPTIMIST_ISO_SECONDS=n sets the duration.
func TestRealClockReaderIsolation(t *testing.T) {
	cfg := isoConfigFromEnv()
	ctx := isoCtx(t, cfg.duration+5*time.Minute)
	w := &isoWorld{isoEnv: newIsoEnv(t, false), t: t, cfg: cfg,
		opts:    []unit.Option{unit.LeaseDuration(cfg.lease), unit.Heartbeat(cfg.lease / 5), unit.Wait(cfg.lease)},
		hint:    make([]atomic.Int64, cfg.slots),
		writers: map[string]*isoWriter{}, deleted: map[string]map[string][]string{},
		stats: map[string]int{}, crashes: map[int64]string{}}
	require.NoError(t, w.seed(ctx))
	w.stat("seeded")

	total, commit, err := w.calibrate(ctx)
	require.NoError(t, err)
	t.Logf("a unit of the crash shape makes %d protocol writes; write %d is its commit point", total, commit)
	// The calibration unit wrote some accounts and its ledger entry: reseed.
	require.NoError(t, w.seed(ctx))
	require.NoError(t, w.ledger.Delete(ctx, isoEntry{ID: "calibration"}))
	// Around the commit point first, then every write in a random order
	// (all of them, in turn, if the run is long enough).
	seed := uint64(time.Now().UnixNano())
	t.Logf("random seed %d (the goroutines' interleaving is not reproducible)", seed)
	seedRng := rand.New(rand.NewPCG(seed, 7))
	w.crashK = []int64{commit - 1, commit, commit + 1}
	for _, k := range seedRng.Perm(int(total) + 1) {
		if k := int64(k); k < commit-1 || k > commit+1 {
			w.crashK = append(w.crashK, k)
		}
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	run := func(n int, f func(context.Context, *rand.Rand, <-chan struct{})) {
		for range n {
			rng := rand.New(rand.NewPCG(seedRng.Uint64(), seedRng.Uint64()))
			wg.Add(1)
			go func() { defer wg.Done(); f(ctx, rng, stop) }()
		}
	}
	run(cfg.units, w.unitLoop)
	run(cfg.readers, w.readLoop)
	run(cfg.writers, w.plainLoop)
	run(1, func(ctx context.Context, _ *rand.Rand, stop <-chan struct{}) { w.recoverLoop(ctx, stop) })
	time.Sleep(cfg.duration)
	// On, if need be, until a unit crashed: its lease then runs out on the
	// wall clock before Recover finishes it (here or in drain), which is
	// what this test is here to show.
	for w.crashCount() == 0 && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	t.Logf("workload ran %v", time.Since(start).Round(time.Millisecond))

	// Drain: recover until no lock is left.
	final := w.drain(ctx)
	h := w.history(final)
	rep := isoCheck(h)
	for _, n := range w.notes {
		rep.add(n.Kind, "%s", n.Detail)
	}
	w.endChecks(ctx, final, rep)

	kinds := map[string]int{}
	for _, r := range w.reads {
		kinds[r.Kind]++
	}
	var crashed []string
	for k, where := range w.crashes {
		crashed = append(crashed, fmt.Sprintf("%d:%s", k, where))
	}
	sort.Strings(crashed)
	t.Logf("reads: %v", kinds)
	t.Logf("outcomes: %v", w.stats)
	t.Logf("crash points reached (%d of %d): %v", len(w.crashes), total+1, crashed)
	assert.NotEmpty(t, crashed, "a unit crashed, and was recovered on the wall clock")
	t.Logf("checked %d reads, %d writes in %v; %d items left out of index queries in a unit's commit-to-apply window (documented, allowed)",
		len(w.reads), len(w.writers), time.Since(start).Round(time.Millisecond), rep.allowed)
	if rep.total() > 0 {
		t.Errorf("isolation: %s", rep)
	}
}

type isoFinal struct {
	items  map[string]*isoAccount
	locked []string
	ledger map[string]bool
}

// drain runs Recover until no item holds a lock (at most a minute), then
// reads the tables raw.
func (w *isoWorld) drain(ctx context.Context) *isoFinal {
	t := w.t
	deadline := time.Now().Add(time.Minute)
	for {
		n, err := unit.Recover(ctx, w.c, w.coord)
		require.NoError(t, err)
		f := w.readFinal(ctx)
		if (n == 0 && len(f.locked) == 0) || time.Now().After(deadline) {
			return f
		}
	}
}

// explainLock logs a lock left behind, with what its unit's record says.
func (w *isoWorld) explainLock(ctx context.Context, id string, lk types.AttributeValue) {
	m, _ := lk.(*types.AttributeValueMemberM)
	if m == nil {
		return
	}
	u, _ := m.Value["u"].(*types.AttributeValueMemberS)
	coord, _ := m.Value["t"].(*types.AttributeValueMemberS)
	if u == nil || coord == nil {
		return
	}
	out, err := w.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(coord.Value),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: u.Value}}, ConsistentRead: aws.Bool(true)})
	w.t.Logf("lock left on %s: %v; its unit's record: %v (err %v)", id, m.Value, out.Item, err)
}

func (w *isoWorld) readFinal(ctx context.Context) *isoFinal {
	t := w.t
	f := &isoFinal{items: map[string]*isoAccount{}, ledger: map[string]bool{}}
	items, err := isoRaw(ctx, w.c, w.accts.Name())
	require.NoError(t, err)
	for _, it := range items {
		a, err := w.accts.Decode(it)
		require.NoError(t, err)
		if lk, ok := it[isoLockAttr]; ok {
			f.locked = append(f.locked, a.ID)
			w.explainLock(ctx, a.ID, lk)
		}
		f.items[a.ID] = a
	}
	entries, err := isoRaw(ctx, w.c, w.ledger.Name())
	require.NoError(t, err)
	for _, it := range entries {
		e, err := w.ledger.Decode(it)
		require.NoError(t, err)
		if _, ok := it[isoLockAttr]; ok {
			f.locked = append(f.locked, isoLedgerKey+e.ID)
		}
		f.ledger[e.ID] = true
	}
	return f
}

// history builds what the checker checks from the records and the final
// state.
func (w *isoWorld) history(f *isoFinal) *isoHistory {
	h := &isoHistory{Writers: w.writers, Reads: w.reads, Final: map[string][]string{}, Slot: map[string]string{},
		Stable: w.stable, Total: int64(w.cfg.stable+w.cfg.slots) * isoBalance}
	for id, a := range f.items {
		h.Final[id] = a.Hist
	}
	for id, by := range w.deleted {
		if _, ok := f.items[id]; ok {
			continue
		}
		for deleter, hist := range by {
			if f.ledger[deleter] {
				h.Final[id] = hist
			}
		}
	}
	for id := range f.ledger {
		h.Final[isoLedgerKey+id] = []string{id}
	}
	for s := range w.cfg.slots {
		for g := int64(0); g <= w.n.Load(); g++ {
			id := isoSlotID(s, g)
			if _, ok := h.Final[id]; !ok && g > w.hint[s].Load()+3 {
				break
			}
			h.Slot[id] = strconv.Itoa(s)
		}
	}
	return h
}

// endChecks: no lock left, the total conserved, a plain write of every
// account succeeds.
func (w *isoWorld) endChecks(ctx context.Context, f *isoFinal, rep *isoReport) {
	for _, id := range f.locked {
		rep.add("lock-left", "%s still holds a unit's lock after Recover", id)
	}
	var sum int64
	for _, a := range f.items {
		sum += a.Balance
	}
	if want := int64(w.cfg.stable+w.cfg.slots) * isoBalance; sum != want {
		rep.add("final-total", "the accounts hold %d in all, not %d", sum, want)
	}
	for id := range f.items {
		a, err := w.accts.Update(ctx, isoKeyOf(id), update.Add("balance", 0))
		if err != nil {
			rep.add("plain-write-refused", "Update of %s: %v", id, err)
			continue
		}
		if err := w.accts.Put(ctx, a); err != nil {
			rep.add("plain-write-refused", "Put of %s: %v", id, err)
		}
	}
}
