package unit_test

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// The isolation checker: it takes a history of writes (units of work and
// plain writes, each with the items it changed and how) and of reads of
// every kind (each with the interval of isoSeq numbers it ran in and what
// it saw), together with the order in which each item went through its
// committed writes (known at the end: every write appends its stamp to the
// item's "hist" list), and reports every read that no linearizable
// database could have returned:
//
//   - back-in-time: a read saw an item older than a read that ended
//     before it began had seen it;
//   - stale-after-commit: a read that began after a write had been
//     acknowledged (Commit returned nil, or the commit point's write was
//     answered) did not see it;
//   - partial-unit: a read that began after another read had seen a unit
//     on one item saw an item of that unit from before it (all or
//     nothing, across reads);
//   - dirty-read: a read saw a write before its commit point was sent;
//   - uncommitted-seen, never-held: a read saw a state no committed
//     history went through (a rolled-back or crashed unit's stamp, or
//     content that does not match the history);
//   - mixed-snapshot: a txn.Get snapshot holds some items of a unit in
//     their new state and some in their old;
//   - impossible-snapshot: a snapshot shows a write but not another one
//     that finished before the first began;
//   - snapshot-total: a snapshot of every account does not hold the
//     conserved total;
//   - filter-mismatch: a Query or Scan with a key condition on an index or
//     a Filter returned an item, shown in a state that does not match it;
//   - missing-from-filtered-read: it left out an item that matched in
//     every state the item could have had during the read;
//   - partial-final, lost-commit, uncommitted-applied: a unit's writes
//     ended in some items and not others, a unit whose Commit returned nil
//     (or whose commit point was acknowledged) is not there, or one that
//     rolled back or crashed before its commit point is;
//   - read notes: errors and anomalies found while reading (GetAll
//     returning a nil item with no MissingError, a key returned twice).

// isoNever is the End of a write whose completion is not known.
const isoNever = math.MaxInt64

// isoEffect is what a write did to one item.
type isoEffect struct {
	Status  string
	Set     bool  // Balance is the balance written; else Delta was added
	Balance int64 // with Set
	Delta   int64 // without Set
	Delete  bool
}

// isoWriter is a unit of work or a plain write.
type isoWriter struct {
	ID    string
	Plain bool // a plain mapper write (or the seed), not a unit
	// Start is the earliest point the write may have taken effect: the
	// isoSeq just before its commit point (or plain write) was sent.
	Start int64
	// End is a point by which it had taken effect if it ever did: the
	// isoSeq after Commit returned nil or the commit point's write was
	// answered; isoNever if not known.
	End int64
	// MustCommit: Commit returned nil, or its commit point was
	// acknowledged. MustNotCommit: it rolled back, or crashed or failed
	// before its commit point was sent.
	MustCommit, MustNotCommit bool
	Effects                   map[string]isoEffect
	Note                      string
}

// isoObs is what a read saw of one item.
type isoObs struct {
	Key      string
	Present  bool
	Rank     int    // len(hist): the number of writes the state went through
	HistHash uint64 // isoHash of hist
	Stamp    string
	Balance  int64
	Status   string
	Version  int64
}

// isoRead is one read.
type isoRead struct {
	Kind       string
	Start, End int64
	Snapshot   bool     // txn.Get: one point in time
	Obs        []isoObs // items seen, and items known absent
	// Pred, for a read that returns only the items whose status is Pred
	// (an index query or a filter): Neg are the keys it did not return.
	Pred string
	Neg  []string
	// AllAccounts: the read covers every account (for the total).
	AllAccounts bool
	Notes       []isoNote
}

type isoNote struct{ Kind, Detail string }

// isoHistory is what the checker checks.
type isoHistory struct {
	Writers map[string]*isoWriter
	Reads   []*isoRead
	// Final lists for each item the stamps of the committed writes it went
	// through, in order; an item deleted at the end ends with its deleter.
	Final map[string][]string
	// Slot maps the keys of accounts that are renamed (deleted and created
	// under the next key) to their slot; other accounts always exist.
	Slot map[string]string
	// Stable are the accounts that always exist.
	Stable []string
	Total  int64
}

// isoHash hashes a hist list (FNV-1a over the stamps, each followed by 0).
func isoHash(hist []string) uint64 {
	h := isoHashStart
	for _, s := range hist {
		h = isoHashAdd(h, s)
	}
	return h
}

const isoHashStart uint64 = 14695981039346656037

func isoHashAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	h ^= 0
	h *= 1099511628211
	return h
}

// isoReport counts violations by kind, with examples.
type isoReport struct {
	counts   map[string]int
	examples map[string][]string
	byRead   map[string]int // violations found in each kind of read
	// allowed counts the items left out of a query of a secondary index
	// in the documented window between a unit's commit point and its
	// apply: not violations.
	allowed int
}

func newIsoReport() *isoReport {
	return &isoReport{counts: map[string]int{}, examples: map[string][]string{}, byRead: map[string]int{}}
}

// addRead adds a violation found in read r.
func (r *isoReport) addRead(read *isoRead, kind, format string, args ...any) {
	r.byRead[read.Kind]++
	r.add(kind, format, args...)
}

func (r *isoReport) add(kind, format string, args ...any) {
	r.counts[kind]++
	if len(r.examples[kind]) < 4 {
		r.examples[kind] = append(r.examples[kind], fmt.Sprintf(format, args...))
	}
}

func (r *isoReport) total() int {
	n := 0
	for _, c := range r.counts {
		n += c
	}
	return n
}

func (r *isoReport) String() string {
	if r.total() == 0 {
		return "no violation"
	}
	kinds := make([]string, 0, len(r.counts))
	for k := range r.counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var b strings.Builder
	fmt.Fprintf(&b, "%d violations:", r.total())
	for _, k := range kinds {
		fmt.Fprintf(&b, "\n  %-28s %d", k, r.counts[k])
		for _, e := range r.examples[k] {
			fmt.Fprintf(&b, "\n      e.g. %s", e)
		}
	}
	if len(r.byRead) > 0 {
		reads := make([]string, 0, len(r.byRead))
		for k, n := range r.byRead {
			reads = append(reads, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(reads)
		fmt.Fprintf(&b, "\n  by kind of read: %s", strings.Join(reads, ", "))
	}
	return b.String()
}

// isoKey is what the checker knows of one item: its committed history and
// the state after each write (rank p is the state after the p-th write;
// rank 0 is "not created yet").
type isoKey struct {
	H        []string
	pos      map[string]int
	hash     []uint64
	present  []bool
	balance  []int64
	status   []string
	maxStart []int64 // the latest Start of the writes up to rank p
	deleted  bool    // the last rank is a deletion

	obsMin []int64 // obsMin[p]: the earliest End of a read that saw rank >= p
	teff   []int64 // teff[p]: a point after which rank p was visible
	direct []isoSeen
}

type isoSeen struct {
	end  int64
	rank int
}

// lower returns the highest rank visible before point s.
func (k *isoKey) lower(s int64) int {
	// teff is non-decreasing in p: the first p with teff[p] >= s, minus 1.
	n := len(k.H)
	p := sort.Search(n, func(i int) bool { return k.teff[i+1] >= s })
	return p
}

// upper returns the highest rank whose writes had all begun before point e.
func (k *isoKey) upper(e int64) int {
	n := len(k.H)
	return sort.Search(n, func(i int) bool { return k.maxStart[i+1] >= e })
}

// maxDirect returns the highest rank seen by a read that ended before s.
func (k *isoKey) maxDirect(s int64) int {
	i := sort.Search(len(k.direct), func(i int) bool { return k.direct[i].end >= s })
	if i == 0 {
		return -1
	}
	return k.direct[i-1].rank // direct holds prefix maxima
}

type isoObsRef struct {
	r *isoRead
	o *isoObs
}

// isoCheck checks h and reports every violation found.
func isoCheck(h *isoHistory) *isoReport {
	rep := newIsoReport()
	keys := map[string]*isoKey{}
	getKey := func(name string) *isoKey {
		if k, ok := keys[name]; ok {
			return k
		}
		k := &isoKey{pos: map[string]int{}}
		hist := h.Final[name]
		n := len(hist)
		k.H = hist
		k.hash = make([]uint64, n+1)
		k.present = make([]bool, n+1)
		k.balance = make([]int64, n+1)
		k.status = make([]string, n+1)
		k.maxStart = make([]int64, n+1)
		k.obsMin = make([]int64, n+2)
		k.teff = make([]int64, n+2)
		k.hash[0] = isoHashStart
		for p := 1; p <= n; p++ {
			id := hist[p-1]
			k.pos[id] = p
			k.hash[p] = isoHashAdd(k.hash[p-1], id)
			w := h.Writers[id]
			k.maxStart[p] = k.maxStart[p-1]
			if w == nil {
				rep.add("unknown-writer", "%s went through a write %q the test never made", name, id)
				continue
			}
			k.maxStart[p] = max(k.maxStart[p-1], w.Start)
			eff, ok := w.Effects[name]
			if !ok {
				rep.add("unknown-writer", "%s went through a write of %s, which did not write it", name, id)
				continue
			}
			if eff.Delete {
				if p == n {
					k.deleted = true
				}
				continue
			}
			k.present[p] = true
			k.status[p] = eff.Status
			if eff.Set {
				k.balance[p] = eff.Balance
			} else {
				k.balance[p] = k.balance[p-1] + eff.Delta
			}
		}
		for p := range k.obsMin {
			k.obsMin[p] = isoNever
		}
		keys[name] = k
		return k
	}
	committed := func(id string) bool {
		w := h.Writers[id]
		if w == nil || len(w.Effects) == 0 {
			return false
		}
		for name := range w.Effects {
			if _, ok := getKey(name).pos[id]; !ok {
				return false
			}
		}
		return true
	}

	// Outcomes: every write is in all of its items' histories or in none.
	ids := make([]string, 0, len(h.Writers))
	for id := range h.Writers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		w := h.Writers[id]
		var in, out []string
		for name, eff := range w.Effects {
			k := getKey(name)
			p, ok := k.pos[id]
			if ok && eff.Delete && p != len(k.H) {
				rep.add("never-held", "%s deleted %s, which then went through more writes", id, name)
			}
			if ok {
				in = append(in, name)
			} else {
				out = append(out, name)
			}
		}
		slices.Sort(in)
		slices.Sort(out)
		switch {
		case len(in) > 0 && len(out) > 0:
			rep.add("partial-final", "%s (%s) ended in %v but not in %v", id, w.Note, in, out)
		case len(in) > 0 && w.MustNotCommit:
			rep.add("uncommitted-applied", "%s (%s) rolled back or died before its commit point, yet it is in %v", id, w.Note, in)
		case len(in) == 0 && len(out) > 0 && w.MustCommit:
			rep.add("lost-commit", "%s (%s) committed, yet none of %v holds it", id, w.Note, out)
		}
	}

	for _, r := range h.Reads {
		for _, o := range r.Obs {
			getKey(o.Key)
		}
		for _, name := range r.Neg {
			getKey(name)
		}
	}

	// Observations: valid ones name a committed state.
	valid := map[*isoObs]bool{}
	var absent []isoObsRef
	for _, r := range h.Reads {
		for i := range r.Obs {
			o := &r.Obs[i]
			k := getKey(o.Key)
			if !o.Present {
				absent = append(absent, isoObsRef{r, o})
				continue
			}
			p := o.Rank
			switch {
			case p < 1 || p > len(k.H) || k.hash[p] != o.HistHash || !k.present[p]:
				if !committed(o.Stamp) {
					rep.addRead(r, "uncommitted-seen", "%s [%d,%d] saw %s with stamp %s (rank %d), a write that never committed", r.Kind, r.Start, r.End, o.Key, o.Stamp, p)
				} else {
					rep.addRead(r, "never-held", "%s [%d,%d] saw %s at rank %d (stamp %s), not a state of its history", r.Kind, r.Start, r.End, o.Key, p, o.Stamp)
				}
				continue
			case o.Stamp != k.H[p-1] || o.Balance != k.balance[p] || o.Status != k.status[p] || o.Version != int64(p):
				rep.addRead(r, "never-held", "%s [%d,%d] saw %s at rank %d as stamp %s balance %d status %q version %d; the state was stamp %s balance %d status %q",
					r.Kind, r.Start, r.End, o.Key, p, o.Stamp, o.Balance, o.Status, o.Version, k.H[p-1], k.balance[p], k.status[p])
				continue
			}
			valid[o] = true
			k.obsMin[p] = min(k.obsMin[p], r.End)
			k.direct = append(k.direct, isoSeen{r.End, p})
		}
	}

	// When each write became visible (T), to a fixpoint: a write is visible
	// once it was acknowledged, once a read saw it (or a later write of the
	// same item) on any of its items.
	T := map[string]int64{}
	for _, id := range ids {
		if committed(id) {
			T[id] = h.Writers[id].End
		}
	}
	resolved := map[*isoObs]bool{} // absent observations known to be the deletion
	for range 50 {
		for _, k := range keys {
			n := len(k.H)
			k.teff[n+1] = isoNever
			for p := n; p >= 1; p-- {
				t := min(k.obsMin[p], k.teff[p+1])
				if w, ok := T[k.H[p-1]]; ok {
					t = min(t, w)
				}
				k.teff[p] = t
			}
			k.teff[0] = math.MinInt64
		}
		changed := false
		for id, t := range T {
			for name := range h.Writers[id].Effects {
				k := keys[name]
				if te := k.teff[k.pos[id]]; te < t {
					t = te
				}
			}
			if t < T[id] {
				T[id] = t
				changed = true
			}
		}
		for _, a := range absent {
			if resolved[a.o] {
				continue
			}
			k := keys[a.o.Key]
			if k.lower(a.r.Start) >= 1 && k.deleted && h.Writers[k.H[len(k.H)-1]].Start < a.r.End {
				resolved[a.o] = true
				n := len(k.H)
				k.obsMin[n] = min(k.obsMin[n], a.r.End)
				k.direct = append(k.direct, isoSeen{a.r.End, n})
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for _, k := range keys {
		sort.Slice(k.direct, func(i, j int) bool { return k.direct[i].end < k.direct[j].end })
		for i := 1; i < len(k.direct); i++ {
			k.direct[i].rank = max(k.direct[i].rank, k.direct[i-1].rank)
		}
	}

	// Why was rank L visible before s, when the read saw rank r?
	classify := func(k *isoKey, name string, r int, s int64) (string, string) {
		if d := k.maxDirect(s); d > r {
			return "back-in-time", fmt.Sprintf("a read that ended before it had seen rank %d", d)
		}
		L := k.lower(s)
		for p := r + 1; p <= L; p++ {
			if w := h.Writers[k.H[p-1]]; w != nil && w.End < s {
				return "stale-after-commit", fmt.Sprintf("%s (%s) had been acknowledged at %d", w.ID, w.Note, w.End)
			}
		}
		return "partial-unit", fmt.Sprintf("%s had been seen on another item before", k.H[L-1])
	}

	for _, r := range h.Reads {
		for _, n := range r.Notes {
			rep.addRead(r, n.Kind, "%s [%d,%d]: %s", r.Kind, r.Start, r.End, n.Detail)
		}
		for i := range r.Obs {
			o := &r.Obs[i]
			k := keys[o.Key]
			if o.Present {
				if !valid[o] {
					continue
				}
				if L := k.lower(r.Start); L > o.Rank {
					kind, why := classify(k, o.Key, o.Rank, r.Start)
					rep.addRead(r, kind, "%s [%d,%d] saw %s at rank %d (stamp %s); rank %d (stamp %s) was visible before it began: %s",
						r.Kind, r.Start, r.End, o.Key, o.Rank, o.Stamp, L, k.H[L-1], why)
				}
				if k.maxStart[o.Rank] > r.End {
					rep.addRead(r, "dirty-read", "%s [%d,%d] saw %s at rank %d (stamp %s), whose commit point was sent only at %d",
						r.Kind, r.Start, r.End, o.Key, o.Rank, o.Stamp, k.maxStart[o.Rank])
				}
				if r.Pred != "" && o.Status != r.Pred {
					rep.addRead(r, "filter-mismatch", "%s [%d,%d] (status = %s) returned %s in a state with status %q (rank %d, stamp %s)",
						r.Kind, r.Start, r.End, r.Pred, o.Key, o.Status, o.Rank, o.Stamp)
				}
				continue
			}
			if L := k.lower(r.Start); L >= 1 && !resolved[o] {
				kind, why := classify(k, o.Key, 0, r.Start)
				rep.addRead(r, kind, "%s [%d,%d] found no %s; rank %d (stamp %s) was visible before it began: %s",
					r.Kind, r.Start, r.End, o.Key, L, k.H[L-1], why)
			}
		}
		for _, name := range r.Neg {
			k := keys[name]
			L, U := k.lower(r.Start), k.upper(r.End)
			if U < L {
				continue // reported with the item's other reads, if any
			}
			must := true
			for p := L; p <= U && must; p++ {
				must = k.present[p] && k.status[p] == r.Pred
			}
			if must && r.Kind == "Query(index)" && isoMovedInByUnit(h, k, U) {
				// Documented (mapper.LockedError): a query of a
				// secondary index finds items by their index key as stored,
				// so an item a unit moved to the queried key may be missing
				// between the unit's commit point and its apply of the item
				// (or its recovery, if its process died there).
				rep.allowed++
				continue
			}
			if must {
				rep.addRead(r, "missing-from-filtered-read", "%s [%d,%d] (status = %s) left out %s, whose status was %s in every state it could have had (ranks %d..%d)",
					r.Kind, r.Start, r.End, r.Pred, name, r.Pred, L, U)
			}
		}
		if r.Snapshot {
			isoCheckSnapshot(h, r, keys, valid, resolved, rep)
		}
	}
	return rep
}

// isoMovedInByUnit reports whether the last change of the item's status
// at or before rank u was made by a unit: until that unit applies the
// item, its index key as stored is the old one.
func isoMovedInByUnit(h *isoHistory, k *isoKey, u int) bool {
	for p := u; p >= 1; p-- {
		if k.status[p] != k.status[p-1] || k.present[p] != k.present[p-1] {
			w := h.Writers[k.H[p-1]]
			return w != nil && !w.Plain
		}
	}
	return false
}

// isoCheckSnapshot checks that one txn.Get shows a state the database
// held.
func isoCheckSnapshot(h *isoHistory, r *isoRead, keys map[string]*isoKey, valid, resolved map[*isoObs]bool, rep *isoReport) {
	type side struct{ after, before bool }
	units := map[string][]side{}
	var unitOrder []string
	maxVis, minInvis := int64(0), int64(isoNever)
	var visBy, invisBy string
	for i := range r.Obs {
		o := &r.Obs[i]
		k := keys[o.Key]
		var canAfter, canBefore func(p int) bool
		switch {
		case o.Present && valid[o]:
			canAfter = func(p int) bool { return o.Rank >= p }
			canBefore = func(p int) bool { return o.Rank < p }
			if k.maxStart[o.Rank] > maxVis {
				maxVis, visBy = k.maxStart[o.Rank], fmt.Sprintf("%s at rank %d", o.Key, o.Rank)
			}
			if o.Rank < len(k.H) && k.teff[o.Rank+1] < minInvis {
				minInvis, invisBy = k.teff[o.Rank+1], fmt.Sprintf("%s at rank %d, not showing %s", o.Key, o.Rank, k.H[o.Rank])
			}
		case !o.Present:
			del := resolved[o] || (k.deleted && h.Writers[k.H[len(k.H)-1]].Start < r.End)
			notYet := k.lower(r.Start) == 0
			canAfter = func(int) bool { return del }
			canBefore = func(int) bool { return notYet }
		default:
			continue
		}
		for p, id := range k.H {
			w := h.Writers[id]
			if w == nil || w.Plain {
				continue
			}
			if _, ok := units[id]; !ok {
				unitOrder = append(unitOrder, id)
			}
			units[id] = append(units[id], side{canAfter(p + 1), canBefore(p + 1)})
		}
	}
	for _, id := range unitOrder {
		sides := units[id]
		if len(sides) < 2 {
			continue
		}
		allAfter, allBefore := true, true
		var nAfter, nBefore int
		for _, s := range sides {
			allAfter = allAfter && s.after
			allBefore = allBefore && s.before
			if s.after && !s.before {
				nAfter++
			}
			if s.before && !s.after {
				nBefore++
			}
		}
		if !allAfter && !allBefore {
			rep.addRead(r, "mixed-snapshot", "%s [%d,%d] shows %d items of unit %s (%s) after it and %d before it",
				r.Kind, r.Start, r.End, nAfter, id, h.Writers[id].Note, nBefore)
		}
	}
	if minInvis < maxVis {
		rep.addRead(r, "impossible-snapshot", "%s [%d,%d] shows %s (a write sent at %d) but %s, visible since %d",
			r.Kind, r.Start, r.End, visBy, maxVis, invisBy, minInvis)
	}
	if !r.AllAccounts {
		return
	}
	var sum int64
	perSlot := map[string]int{}
	present := map[string]bool{}
	for _, o := range r.Obs {
		if !o.Present {
			continue
		}
		sum += o.Balance
		present[o.Key] = true
		if s, ok := h.Slot[o.Key]; ok {
			perSlot[s]++
		}
	}
	for _, k := range h.Stable {
		if !present[k] {
			return // reported as an item missing
		}
	}
	slots := map[string]bool{}
	for _, s := range h.Slot {
		slots[s] = true
	}
	for s := range slots {
		if perSlot[s] != 1 {
			return // not every slot's live key was read, or a mixed rename (reported)
		}
	}
	if sum != h.Total {
		rep.addRead(r, "snapshot-total", "%s [%d,%d] of every account sums to %d, not %d", r.Kind, r.Start, r.End, sum, h.Total)
	}
}
