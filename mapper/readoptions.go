package mapper

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/optimist-dynamo/optimist/internal/errs"
)

// ReadOptions configure one read: Get, GetAll, Query, Scan, One, Count
// and ScanCount. Pass functions that change them, such as [Index],
// [Filter], [Limit]; one type serves every read, and each call takes the
// options that make sense for it:
//
//	option          Get  GetAll  Query  Scan  One  Count  ScanCount
//	ConsistentRead   ✓     ✓       ✓     ✓    ✓     ✓       ✓
//	Project          ✓     ✓       ✓     ✓    ✓
//	Index                          ✓     ✓    ✓     ✓       ✓
//	Filter                         ✓     ✓    ✓     ✓       ✓
//	Descending                     ✓
//	Limit                          ✓     ✓
//	PageSize                       ✓     ✓    ✓     ✓       ✓
//	StartAfter                     ✓     ✓    ✓     ✓       ✓ (not with Segments)
//	Segments                             ✓                  ✓
//	ReadCapacity     ✓             ✓     ✓    ✓     ✓       ✓
//
// Any other use, and a value that cannot work (Limit(0), PageSize(-1),
// Segments(0), a malformed cursor or one taken on another table or index),
// is an error matching [ErrInvalidOption], returned (or, for Query and
// Scan, yielded by the iterator) before any call is sent. Options are plain
// values: a set of them can be kept in a slice and passed to several calls,
// and [Table.CursorAfter] takes the same slice as the Query it follows.
// Given twice, Filter and Project add up; for the others the last one wins.
type ReadOptions struct {
	// ConsistentRead, if set, says whether reads are strongly consistent
	// ([ConsistentRead]); nil keeps the call's default.
	ConsistentRead *bool
	// Index and IndexKeys name a secondary index and its key attributes
	// ([Index]).
	Index     string
	IndexKeys []string
	// Filters are ANDed into a FilterExpression ([Filter]).
	Filters []expression.ConditionBuilder
	// Project lists the attributes to read ([Project]).
	Project []string
	// Descending reverses a Query's order ([Descending]).
	Descending bool
	// Limit is the most items a Query or Scan returns ([Limit]); 0: all.
	Limit int
	// PageSize is DynamoDB's Limit per call ([PageSize]); 0: DynamoDB's.
	PageSize int
	// StartAfter resumes after a cursor ([StartAfter]).
	StartAfter Cursor
	// Segments makes a Scan parallel ([Segments]); 0: not parallel.
	Segments int
	// Capacity receives the read capacity consumed ([ReadCapacity]).
	Capacity *Capacity

	startSet bool  // StartAfter was given, even with an empty cursor
	err      error // the first option given a value that cannot work
}

// A ReadOption changes the [ReadOptions] of one read.
type ReadOption = func(*ReadOptions)

// readOpt is a set of ReadOptions, to check which ones a call accepts.
type readOpt uint16

const (
	optConsistent readOpt = 1 << iota
	optProject
	optIndex
	optFilter
	optDescending
	optLimit
	optPageSize
	optStartAfter
	optSegments
	optCapacity
)

var readOptNames = []struct {
	o    readOpt
	name string
}{
	{optConsistent, "ConsistentRead"}, {optProject, "Project"}, {optIndex, "Index"},
	{optFilter, "Filter"}, {optDescending, "Descending"}, {optLimit, "Limit"},
	{optPageSize, "PageSize"}, {optStartAfter, "StartAfter"}, {optSegments, "Segments"},
	{optCapacity, "ReadCapacity"},
}

// readCall names the calls that take ReadOptions, with the options each one
// accepts.
type readCall struct {
	name    string
	allowed readOpt
	// consistent is the call's default for ConsistentRead.
	consistent bool
}

var (
	callGet       = readCall{"Get", optConsistent | optProject | optCapacity, true}
	callGetAll    = readCall{"GetAll", optConsistent | optProject, true}
	callQuery     = readCall{"Query", ^optSegments, false}
	callScan      = readCall{"Scan", ^optDescending, false}
	callOne       = readCall{"One", optConsistent | optProject | optIndex | optFilter | optPageSize | optStartAfter | optCapacity, false}
	callCount     = readCall{"Count", optConsistent | optIndex | optFilter | optPageSize | optStartAfter | optCapacity, false}
	callScanCount = readCall{"ScanCount", optConsistent | optIndex | optFilter | optPageSize | optStartAfter | optSegments | optCapacity, false}
	// callCursor reads only Index; the other options of the query it follows
	// are ignored, so the same slice can be passed.
	callCursor = readCall{"CursorAfter", ^readOpt(0), false}
)

// readConfig is a read's options, checked for its call.
type readConfig struct {
	consistent bool
	index      string
	indexKeys  []string // the index's key attributes, hash then range
	filters    []expression.ConditionBuilder
	project    []string
	descending bool
	limit      int
	pageSize   int
	start      Cursor
	segments   int
	capacity   *capacityAdder // nil unless ReadCapacity was given

	// filterCheck and keyCheck are the filter and (for an index) the key
	// condition, to evaluate again on the committed state of items a unit
	// holds (see visibleAll).
	filterCheck, keyCheck *recheck
	// count: a Count or ScanCount (Select=COUNT), which sees no items to
	// evaluate again: it counts items as stored, but for those a unit
	// holds while they do not exist.
	count bool
}

func (o *ReadOptions) fail(format string, args ...any) { errs.Invalid(&o.err, format, args...) }

// given returns the options set in o.
func (o *ReadOptions) given() readOpt {
	var set readOpt
	mark := func(f readOpt, on bool) {
		if on {
			set |= f
		}
	}
	mark(optConsistent, o.ConsistentRead != nil)
	mark(optProject, len(o.Project) > 0)
	mark(optIndex, o.Index != "" || len(o.IndexKeys) > 0)
	mark(optFilter, len(o.Filters) > 0)
	mark(optDescending, o.Descending)
	mark(optLimit, o.Limit != 0)
	mark(optPageSize, o.PageSize != 0)
	mark(optStartAfter, o.StartAfter != "" || o.startSet)
	mark(optSegments, o.Segments != 0)
	mark(optCapacity, o.Capacity != nil)
	return set
}

// newReadConfig applies opts for call and checks that call accepts them.
func newReadConfig(call readCall, opts []ReadOption) (readConfig, error) {
	c := readConfig{consistent: call.consistent}
	var o ReadOptions
	for _, fn := range opts {
		if fn == nil {
			o.fail("a nil ReadOption given to %s", call.name)
			continue
		}
		fn(&o)
	}
	if o.err != nil {
		return c, o.err
	}
	set := o.given()
	if bad := set &^ call.allowed; bad != 0 {
		for _, n := range readOptNames {
			if bad&n.o != 0 {
				return c, fmt.Errorf("%w: %s does not apply to %s", ErrInvalidOption, n.name, call.name)
			}
		}
	}
	switch {
	case set&optSegments != 0 && set&optStartAfter != 0:
		return c, fmt.Errorf("%w: StartAfter does not apply to a parallel scan (Segments): its segments have no common order to resume in", ErrInvalidOption)
	case o.Limit < 0:
		return c, fmt.Errorf("%w: Limit %d: need at least 1", ErrInvalidOption, o.Limit)
	case o.PageSize < 0:
		return c, fmt.Errorf("%w: PageSize %d: need at least 1", ErrInvalidOption, o.PageSize)
	case o.Segments < 0 || o.Segments > maxSegments:
		return c, fmt.Errorf("%w: Segments %d: need 1 to %d", ErrInvalidOption, o.Segments, maxSegments)
	case o.Index == "" && len(o.IndexKeys) > 0:
		return c, fmt.Errorf("%w: index keys without an index name", ErrInvalidOption)
	}
	if o.ConsistentRead != nil {
		c.consistent = *o.ConsistentRead
	}
	c.index, c.indexKeys, c.filters, c.project = o.Index, o.IndexKeys, o.Filters, o.Project
	c.descending, c.limit, c.pageSize, c.start, c.segments = o.Descending, o.Limit, o.PageSize, o.StartAfter, o.Segments
	if o.Capacity != nil {
		c.capacity = &capacityAdder{c: o.Capacity}
	}
	return c, nil
}

// ConsistentRead sets whether the read is strongly consistent.
//
// Get and GetAll read consistently by default: a copy you read is a copy
// you will likely write back, and a stale one only earns a conflict.
// Query and Scan read eventually consistently by default, as DynamoDB does.
// A global secondary index cannot be read consistently at all:
// ConsistentRead(true) with [Index] of one (a global index of the type's
// tags or of the design, or an undeclared index whose hash key is not the
// table's) is refused with [ErrInvalidOption] before anything is sent.
// ConsistentRead(false) halves the read cost.
func ConsistentRead(consistent bool) ReadOption {
	return func(o *ReadOptions) { o.ConsistentRead = &consistent }
}

// Index makes a Query or Scan read the secondary index name instead of the
// table (IndexName). keys, optional, are the index's key attributes as in
// its KeySchema: hash, then range if it has one. They are needed only to
// take a cursor with [Table.CursorAfter] (DynamoDB's resume key for an
// index holds the index's key as well as the table's) and are then added to
// any [Project]ion; the usual way is to keep the option in a variable:
//
//	byStatus := mapper.Index("status-index", "status", "created")
//
// The index must be declared, by the type's index tags, by the design of
// an entity, or (for a plain Table only) by giving keys here; another is
// refused with [ErrInvalidOption] before anything is sent. So is a Query
// whose key condition names an attribute that is not a key of the index
// (or, without Index, of the table): put such a condition in a [Filter].
//
// The items of an index hold only the attributes it projects; the others
// decode as zero values (see [Project] on partial items).
func Index(name string, keys ...string) ReadOption {
	return func(o *ReadOptions) {
		switch {
		case name == "":
			o.fail("Index needs an index name")
		case len(keys) > 2:
			o.fail("Index(%q, %q): an index has at most two key attributes (hash, range)", name, keys)
		case len(keys) > 0 && (keys[0] == "" || keys[len(keys)-1] == ""):
			o.fail("Index(%q, %q): empty key attribute name", name, keys)
		}
		o.Index, o.IndexKeys = name, keys
	}
}

// Filter adds a FilterExpression to a Query or Scan: items for which cond is
// false are not returned. Given more than once, the conditions are ANDed.
// DynamoDB applies a filter after reading, so filtered-out items cost read
// capacity as any other, and a page may hold few or no items.
func Filter(cond expression.ConditionBuilder) ReadOption {
	return func(o *ReadOptions) {
		if !cond.IsSet() {
			o.fail("Filter of an empty condition")
		}
		o.Filters = append(o.Filters, cond)
	}
}

// Project reads only the attributes attrs (a ProjectionExpression; every
// name becomes a placeholder, so reserved words are safe, and a.b[2] paths
// reach into maps and lists). The key attributes of the table, and those of
// the index given with [Index], are always added, so the items can still be
// matched to keys and cursors taken after them.
//
// A projected item is partial: the fields not read are zero values,
// including its version. Never write it back with [Table.Put]: that would
// erase the fields not read (for a versioned type, a Put of version 0 is
// refused as a create of an existing item; with [Unversioned] the damage is
// done). Read the whole item to change it, or change it with [Table.Update].
func Project(attrs ...string) ReadOption {
	return func(o *ReadOptions) {
		if len(attrs) == 0 {
			o.fail("Project needs at least one attribute")
		}
		for _, a := range attrs {
			if a == "" {
				o.fail("Project of an empty attribute name")
			}
		}
		o.Project = append(o.Project, attrs...)
	}
}

// Descending makes a Query return items in descending order of the sort
// key (ScanIndexForward=false).
func Descending() ReadOption {
	return func(o *ReadOptions) { o.Descending = true }
}

// Limit makes a Query or Scan iterator stop after n items (n >= 1): no
// further page is read once n items were returned. Without a [Filter] it
// also caps DynamoDB's page size at the number of items still wanted, so no
// item is read that will not be returned. This is not DynamoDB's Limit
// parameter; that one is [PageSize].
func Limit(n int) ReadOption {
	return func(o *ReadOptions) { errs.SetCount(&o.err, &o.Limit, "Limit", n) }
}

// PageSize sets DynamoDB's Limit parameter: the most items each Query or
// Scan call evaluates (n >= 1), before any [Filter]. A page also ends at
// 1 MB of data. The iterator reads every page either way; smaller pages
// mean more calls, each sooner.
func PageSize(n int) ReadOption {
	return func(o *ReadOptions) { errs.SetCount(&o.err, &o.PageSize, "PageSize", n) }
}

// StartAfter makes a Query or Scan resume after the item a cursor was taken
// at (see [Cursor] and [Table.CursorAfter]); it passes the cursor's key as
// ExclusiveStartKey. The cursor must come from the same table, and the same
// index or none, else the option is invalid. An empty cursor starts at the
// beginning, so a handler can pass along the cursor of its request, if any.
// The query's other options (key condition, filter, order) should be those
// the cursor was taken under; DynamoDB does not check.
func StartAfter(c Cursor) ReadOption {
	return func(o *ReadOptions) { o.StartAfter, o.startSet = c, true }
}

// maxSegments is DynamoDB's limit on TotalSegments.
const maxSegments = 1_000_000

// Segments makes a Scan parallel: the table (or index) is split into n
// segments (TotalSegments), each read page by page by its own goroutine,
// and the iterator returns their items as they arrive, in no particular
// order. Up to n calls are in flight at once, so choose n for the
// throughput the table can spare. Stopping the iteration early cancels the
// other segments' calls and waits for their goroutines; an error from any
// segment is yielded and ends the iteration. [Limit] counts items across
// segments, [PageSize] applies to each call. Segments cannot be combined
// with [StartAfter].
func Segments(n int) ReadOption {
	return func(o *ReadOptions) {
		if n < 1 || n > maxSegments {
			o.fail("Segments(%d): need 1 to %d", n, maxSegments)
		}
		o.Segments = n
	}
}
