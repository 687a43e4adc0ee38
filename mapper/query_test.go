package mapper_test

// Query, Scan and cursors against DynamoDB Local.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
)

type Event struct {
	Stream string `dynamo:"stream,hash"`
	Seq    string `dynamo:"seq,range"`
	Kind   string `dynamo:"kind,omitempty" index:"by-kind,hash"`
	At     int    `dynamo:"at" index:"by-kind,range"`
	Body   string `dynamo:"body,omitempty"`
}

// byKind is the events tables' global secondary index, kind (S) / at (N),
// with its key attributes, as CursorAfter needs them.
const byKindName = "by-kind"

var byKind = mapper.Index(byKindName, "kind", "at")

type events struct {
	ctx   context.Context
	srv   *dynamolocal.Server
	raw   *dynamodb.Client
	calls *ddbtest.CountingClient
	table *mapper.Table[Event]
	name  string
}

// newEvents creates a table stream (S) / seq (S) with the index by-kind,
// projecting all attributes, read through a call-counting client.
func newEvents(t *testing.T) *events {
	t.Helper()
	return newEventsOn(t, dynamolocal.New(t))
}

// newEventsOn is newEvents on the server srv (dynamolocal.NewEngine for a
// test in a testing/synctest bubble).
func newEventsOn(t *testing.T, srv *dynamolocal.Server) *events {
	t.Helper()
	raw := srv.Client()
	name := ddbtest.TableName(t)
	ctx := context.Background()
	require.NoError(t, mapper.CreateTable[Event](ctx, raw, name))
	ddbtest.DeleteAtCleanup(t, raw, name)
	calls := ddbtest.NewCounting(raw)
	table, err := mapper.NewTable[Event](calls, name)
	require.NoError(t, err)
	return &events{ctx: ctx, srv: srv, raw: raw, calls: calls, table: table, name: name}
}

// seed writes events e001..e<n> to stream s1: kind "click" for the first
// 20, "view" after; at = (i+1)/2, so pairs of events share a time (ties in
// the index).
func (e *events) seed(t *testing.T, n int) []*Event {
	t.Helper()
	out := make([]*Event, n)
	for i := range out {
		kind := "click"
		if i >= 20 {
			kind = "view"
		}
		out[i] = &Event{Stream: "s1", Seq: seq(i + 1), Kind: kind, At: (i + 2) / 2, Body: fmt.Sprintf("event %d", i+1)}
	}
	require.NoError(t, e.table.PutAll(e.ctx, out))
	e.calls.Reset()
	return out
}

func seq(i int) string { return fmt.Sprintf("e%03d", i) }

func seqs(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, seq(i))
	}
	return out
}

var inS1 = expression.Key("stream").Equal(expression.Value("s1"))

// collect ranges over it to the end; it fails the test on an error.
func collect(t *testing.T, it func(func(*Event, error) bool)) []string {
	t.Helper()
	var out []string
	for e, err := range it {
		require.NoError(t, err)
		out = append(out, e.Seq)
	}
	return out
}

// TestQueryFollowsPages: 40 items, 7 per page: all 40, in order, in 6
// Query calls (5 full pages and one of 5 that ends the query).
func TestQueryFollowsPages(t *testing.T) {
	e := newEvents(t)
	e.seed(t, 40)

	got := collect(t, e.table.Query(e.ctx, inS1, mapper.PageSize(7)))
	assert.Equal(t, seqs(1, 40), got)
	assert.Equal(t, int64(6), e.calls.Count("Query"))
	t.Logf("40 items with PageSize(7): %d Query calls", e.calls.Count("Query"))

	e.calls.Reset()
	got = collect(t, e.table.Query(e.ctx, inS1, mapper.PageSize(7), mapper.Descending()))
	want := seqs(1, 40)
	slices.Reverse(want)
	assert.Equal(t, want, got)

	e.calls.Reset()
	got = collect(t, e.table.Query(e.ctx, inS1, mapper.PageSize(7), mapper.Limit(10)))
	assert.Equal(t, seqs(1, 10), got)
	assert.Equal(t, int64(2), e.calls.Count("Query"), "7, then the 3 still wanted: no third page")

	e.calls.Reset()
	got = collect(t, e.table.Query(e.ctx, inS1, mapper.Limit(10)))
	assert.Equal(t, seqs(1, 10), got)
	assert.Equal(t, int64(1), e.calls.Count("Query"), "without a filter Limit caps the page: one call")

	// Each range over the iterator runs the query anew.
	it := e.table.Query(e.ctx, inS1, mapper.Limit(3))
	assert.Equal(t, collect(t, it), collect(t, it))
}

// TestQueryStopsWhenTheLoopDoes: a break makes no further call, and an
// error ends the iteration.
func TestQueryStopsWhenTheLoopDoes(t *testing.T) {
	e := newEvents(t)
	e.seed(t, 12)
	n := 0
	for ev, err := range e.table.Query(e.ctx, inS1, mapper.PageSize(5)) {
		require.NoError(t, err)
		if n++; ev.Seq == seq(5) {
			break // the last item of the first page
		}
	}
	assert.Equal(t, 5, n)
	assert.Equal(t, int64(1), e.calls.Count("Query"), "no call after the loop stopped")

	missing, err := mapper.NewTable[Event](e.calls, "no-such-table")
	require.NoError(t, err)
	errs := 0
	for ev, err := range missing.Query(e.ctx, inS1) {
		assert.Nil(t, ev)
		var nf *types.ResourceNotFoundException
		assert.ErrorAs(t, err, &nf)
		errs++
	}
	assert.Equal(t, 1, errs, "after an error the iteration ends")
}

// Environment of the helper process of TestQueryCursorResumesInAnotherProcess.
const (
	envResumeTable  = "OPTIMIST_TEST_RESUME_TABLE"
	envResumeCursor = "OPTIMIST_TEST_RESUME_CURSOR"
)

// TestQueryCursorResumesInAnotherProcess: a cursor taken after item 10 of
// a query read 7 items per page (in the middle of page 2) is passed as a
// string to a new process, which builds its own Table and resumes: it must
// read items 11 to 40, no more, no less.
func TestQueryCursorResumesInAnotherProcess(t *testing.T) {
	e := newEvents(t)
	e.seed(t, 40)
	var tenth *Event
	n := 0
	for ev, err := range e.table.Query(e.ctx, inS1, mapper.PageSize(7)) {
		require.NoError(t, err)
		if n++; n == 10 {
			tenth = ev
			break
		}
	}
	require.Equal(t, seq(10), tenth.Seq)
	assert.Equal(t, int64(2), e.calls.Count("Query"))
	cursor, err := e.table.CursorAfter(tenth)
	require.NoError(t, err)

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperResumeQuery$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		envResumeTable+"="+e.name,
		envResumeCursor+"="+string(cursor),
		dynamolocal.EnvEndpoint+"="+e.srv.Endpoint())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	var resumed []string
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "resumed: "); ok {
			resumed = strings.Split(rest, ",")
		}
	}
	assert.Equal(t, seqs(11, 40), resumed, "the other process's output:\n%s", out)
	t.Logf("cursor after item 10 (%d bytes): %s", len(cursor), cursor)
}

// TestHelperResumeQuery is the other process of
// TestQueryCursorResumesInAnotherProcess, which runs the test binary again
// with only this function and the cursor in its environment (the pattern of
// os/exec's TestHelperProcess). Run in the ordinary way it has nothing to
// resume and returns at once.
func TestHelperResumeQuery(t *testing.T) {
	name, cursor := os.Getenv(envResumeTable), os.Getenv(envResumeCursor)
	if name == "" {
		return
	}
	srv := dynamolocal.New(t) // the parent's, through DYNAMODB_ENDPOINT
	table, err := mapper.NewTable[Event](srv.Client(), name)
	require.NoError(t, err)
	got := collect(t, table.Query(context.Background(), inS1, mapper.PageSize(7), mapper.StartAfter(mapper.Cursor(cursor))))
	fmt.Printf("resumed: %s\n", strings.Join(got, ","))
}

// TestCursorResumesMidPage: on the table and on a global secondary index
// (where items tie on the index key), for Query and Scan, a cursor taken in
// the middle of a page resumes exactly at the next item, through another
// Table value.
func TestCursorResumesMidPage(t *testing.T) {
	e := newEvents(t)
	e.seed(t, 40)
	other, err := mapper.NewTable[Event](e.raw, e.name)
	require.NoError(t, err)
	clicks := expression.Key("kind").Equal(expression.Value("click"))

	for _, tc := range []struct {
		name   string
		read   func(*mapper.Table[Event], ...mapper.ReadOption) func(func(*Event, error) bool)
		opts   []mapper.ReadOption
		cutAt  int
		expect int
	}{
		{"query table", func(tb *mapper.Table[Event], o ...mapper.ReadOption) func(func(*Event, error) bool) {
			return tb.Query(e.ctx, inS1, o...)
		}, []mapper.ReadOption{mapper.PageSize(7)}, 10, 40},
		{"query index", func(tb *mapper.Table[Event], o ...mapper.ReadOption) func(func(*Event, error) bool) {
			return tb.Query(e.ctx, clicks, o...)
		}, []mapper.ReadOption{byKind, mapper.PageSize(3)}, 5, 20},
		{"query index, descending", func(tb *mapper.Table[Event], o ...mapper.ReadOption) func(func(*Event, error) bool) {
			return tb.Query(e.ctx, clicks, o...)
		}, []mapper.ReadOption{byKind, mapper.PageSize(4), mapper.Descending()}, 6, 20},
		{"scan table", func(tb *mapper.Table[Event], o ...mapper.ReadOption) func(func(*Event, error) bool) {
			return tb.Scan(e.ctx, o...)
		}, []mapper.ReadOption{mapper.PageSize(7)}, 17, 40},
		{"scan index", func(tb *mapper.Table[Event], o ...mapper.ReadOption) func(func(*Event, error) bool) {
			return tb.Scan(e.ctx, o...)
		}, []mapper.ReadOption{byKind, mapper.PageSize(6)}, 8, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := collect(t, tc.read(e.table, tc.opts...))
			require.Len(t, all, tc.expect)

			var last *Event
			var first []string
			for ev, err := range tc.read(e.table, tc.opts...) {
				require.NoError(t, err)
				first, last = append(first, ev.Seq), ev
				if len(first) == tc.cutAt {
					break
				}
			}
			cursor, err := e.table.CursorAfter(last, tc.opts...)
			require.NoError(t, err)
			rest := collect(t, tc.read(other, append(tc.opts, mapper.StartAfter(cursor))...))
			assert.Equal(t, all, append(first, rest...), "resumed exactly after item %d", tc.cutAt)
		})
	}

	// The index read resumes without the index's key attributes too: they
	// are needed to take the cursor, not to use it.
	all := collect(t, e.table.Query(e.ctx, clicks, byKind))
	var fifth *Event
	for ev, err := range e.table.Query(e.ctx, clicks, byKind, mapper.Limit(5)) {
		require.NoError(t, err)
		fifth = ev
	}
	c, err := e.table.CursorAfter(fifth, byKind)
	require.NoError(t, err)
	assert.Equal(t, all[5:], collect(t, other.Query(e.ctx, clicks, mapper.Index(byKindName), mapper.StartAfter(c))))
}

// TestQueryPagesEndAtOneMegabyte: items of about 390 KB, so each Query page
// stops at 1 MB after a few items; every item still arrives.
func TestQueryPagesEndAtOneMegabyte(t *testing.T) {
	const n, size = 8, 390 << 10
	e := newEvents(t)
	big := make([]*Event, n)
	for i := range big {
		big[i] = &Event{Stream: "big", Seq: seq(i + 1), At: i, Body: strings.Repeat(string(rune('a'+i)), size)}
	}
	require.NoError(t, e.table.PutAll(e.ctx, big))
	e.calls.Reset()

	var got []string
	for ev, err := range e.table.Query(e.ctx, expression.Key("stream").Equal(expression.Value("big"))) {
		require.NoError(t, err)
		i := len(got)
		require.Less(t, i, n)
		assert.Equal(t, strings.Repeat(string(rune('a'+i)), size), ev.Body, "item %d whole", i)
		got = append(got, ev.Seq)
	}
	assert.Equal(t, seqs(1, n), got)
	pages := e.calls.Count("Query")
	assert.GreaterOrEqual(t, pages, int64(3), "pages of at most 1 MB hold at most 3 such items")
	t.Logf("%d items of %d KB: %d Query calls", n, size>>10, pages)
}

// TestQueryConditionsAndOptions runs the key conditions and options against
// DynamoDB and checks each against the same selection made in Go.
func TestQueryConditionsAndOptions(t *testing.T) {
	e := newEvents(t)
	all := e.seed(t, 40)
	sk := expression.Key("seq")
	pick := func(keep func(*Event) bool) []string {
		var out []string
		for _, ev := range all {
			if keep(ev) {
				out = append(out, ev.Seq)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		key  expression.KeyConditionBuilder
		opts []mapper.ReadOption
		want []string
	}{
		{"equal", inS1.And(sk.Equal(expression.Value("e007"))), nil, []string{"e007"}},
		{"less than", inS1.And(sk.LessThan(expression.Value("e004"))), nil, seqs(1, 3)},
		{"less or equal", inS1.And(sk.LessThanEqual(expression.Value("e004"))), nil, seqs(1, 4)},
		{"greater than", inS1.And(sk.GreaterThan(expression.Value("e037"))), nil, seqs(38, 40)},
		{"greater or equal", inS1.And(sk.GreaterThanEqual(expression.Value("e037"))), nil, seqs(37, 40)},
		{"between", inS1.And(sk.Between(expression.Value("e005"), expression.Value("e009"))), nil, seqs(5, 9)},
		{"begins with", inS1.And(sk.BeginsWith("e01")), []mapper.ReadOption{mapper.PageSize(3)}, seqs(10, 19)},
		{"other stream", expression.Key("stream").Equal(expression.Value("s2")), nil, nil},
		{"filters are ANDed", inS1, []mapper.ReadOption{
			mapper.Filter(expression.Name("kind").Equal(expression.Value("view"))),
			mapper.Filter(expression.Name("at").LessThan(expression.Value(15))),
			mapper.PageSize(4),
		}, pick(func(ev *Event) bool { return ev.Kind == "view" && ev.At < 15 })},
		{"filter with limit", inS1, []mapper.ReadOption{
			mapper.Filter(expression.Name("kind").Equal(expression.Value("view"))), mapper.Limit(3),
		}, seqs(21, 23)},
		{"consistent", inS1.And(sk.BeginsWith("e00")), []mapper.ReadOption{mapper.ConsistentRead(true)}, seqs(1, 9)},
		{"index", expression.Key("kind").Equal(expression.Value("view")).And(expression.Key("at").Between(expression.Value(12), expression.Value(13))),
			[]mapper.ReadOption{byKind}, pick(func(ev *Event) bool { return ev.Kind == "view" && ev.At >= 12 && ev.At <= 13 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := collect(t, e.table.Query(e.ctx, tc.key, tc.opts...))
			if tc.name == "index" {
				slices.Sort(got) // ties on "at" come in no set order
			}
			assert.Equal(t, tc.want, got)
		})
	}

	t.Run("projection", func(t *testing.T) {
		var got []Event
		for ev, err := range e.table.Query(e.ctx, inS1.And(sk.LessThan(expression.Value("e003"))), mapper.Project("kind")) {
			require.NoError(t, err)
			got = append(got, *ev)
		}
		assert.Equal(t, []Event{{Stream: "s1", Seq: "e001", Kind: "click"}, {Stream: "s1", Seq: "e002", Kind: "click"}}, got,
			"only the projected attributes and the key")

		var viaIndex []Event
		for ev, err := range e.table.Query(e.ctx, expression.Key("kind").Equal(expression.Value("view")), byKind, mapper.Project("body"), mapper.Limit(1)) {
			require.NoError(t, err)
			viaIndex = append(viaIndex, *ev)
		}
		require.Len(t, viaIndex, 1)
		assert.Equal(t, Event{Stream: "s1", Seq: viaIndex[0].Seq, Kind: "view", At: 11, Body: "event " + viaIndex[0].Seq[2:]}, viaIndex[0],
			"the index's keys are projected too")

		got1, err := e.table.Get(e.ctx, Event{Stream: "s1", Seq: "e021"}, mapper.Project("at"))
		require.NoError(t, err)
		assert.Equal(t, &Event{Stream: "s1", Seq: "e021", At: 11}, got1)
	})

	t.Run("consistent read of a global index is refused before sending", func(t *testing.T) {
		e.calls.Reset()
		n := 0
		for _, err := range e.table.Query(e.ctx, expression.Key("kind").Equal(expression.Value("view")), byKind, mapper.ConsistentRead(true)) {
			require.ErrorIs(t, err, mapper.ErrInvalidOption)
			assert.Contains(t, err.Error(), "global secondary index")
			n++
		}
		assert.Equal(t, 1, n)
		assert.Zero(t, e.calls.Total(), "no call sent")
	})
}

func TestScan(t *testing.T) {
	e := newEvents(t)
	e.seed(t, 40)
	sorted := func(s []string) []string { slices.Sort(s); return s }

	assert.Equal(t, seqs(1, 40), sorted(collect(t, e.table.Scan(e.ctx, mapper.PageSize(9)))))
	assert.Equal(t, int64(5), e.calls.Count("Scan"), "4 full pages and one of 4 that ends the scan")

	views := mapper.Filter(expression.Name("kind").Equal(expression.Value("view")))
	assert.Equal(t, seqs(21, 40), sorted(collect(t, e.table.Scan(e.ctx, views))))
	assert.Equal(t, seqs(1, 20), sorted(collect(t, e.table.Scan(e.ctx, byKind, mapper.Filter(expression.Name("kind").Equal(expression.Value("click")))))))

	e.calls.Reset()
	assert.Len(t, collect(t, e.table.Scan(e.ctx, mapper.Limit(5), mapper.PageSize(2))), 5)
	assert.Equal(t, int64(3), e.calls.Count("Scan"), "2, 2, then 1")

	t.Run("segments", func(t *testing.T) {
		e.calls.Reset()
		assert.Equal(t, seqs(1, 40), sorted(collect(t, e.table.Scan(e.ctx, mapper.Segments(4), mapper.PageSize(5)))),
			"every item once")
		assert.GreaterOrEqual(t, e.calls.Count("Scan"), int64(8+4), "each of 4 segments pages its own ~10 items, 5 at a time")

		assert.Equal(t, seqs(21, 40), sorted(collect(t, e.table.Scan(e.ctx, mapper.Segments(3), views))))
		assert.Len(t, collect(t, e.table.Scan(e.ctx, mapper.Segments(3), mapper.Limit(7), mapper.PageSize(2))), 7)
		assert.Len(t, collect(t, e.table.Scan(e.ctx, mapper.Segments(1))), 40)
	})

	// In a testing/synctest bubble, on an engine of its own: synctest.Wait
	// returns once every goroutine of the bubble has ended or is blocked,
	// so a segment's goroutine left running would make its calls before
	// the count is read again.
	t.Run("stopping a parallel scan ends its goroutines", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			e := newEventsOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
			e.seed(t, 40)
			n := 0
			for _, err := range e.table.Scan(e.ctx, mapper.Segments(4), mapper.PageSize(1)) {
				require.NoError(t, err)
				if n++; n == 3 {
					break
				}
			}
			// The iterator waited for its goroutines: no call is made now.
			calls := e.calls.Count("Scan")
			synctest.Wait()
			assert.Equal(t, calls, e.calls.Count("Scan"), "no Scan call after the loop stopped")
			assert.Less(t, calls, int64(40), "the segments did not read on to the end")
		})
	})

	t.Run("an error in one segment ends the iteration", func(t *testing.T) {
		missing, err := mapper.NewTable[Event](e.raw, "no-such-table")
		require.NoError(t, err)
		var errs []error
		for ev, err := range missing.Scan(e.ctx, mapper.Segments(4)) {
			assert.Nil(t, ev)
			errs = append(errs, err)
		}
		require.Len(t, errs, 1)
		var nf *types.ResourceNotFoundException
		assert.ErrorAs(t, errs[0], &nf)
		assert.Contains(t, errs[0].Error(), "segment")
	})

	t.Run("the caller's context ends a parallel scan", func(t *testing.T) {
		ctx, cancel := context.WithCancel(e.ctx)
		defer cancel()
		var last error
		n := 0
		for _, err := range e.table.Scan(ctx, mapper.Segments(2), mapper.PageSize(1)) {
			if n++; n == 2 {
				cancel()
			}
			last = err
		}
		assert.ErrorIs(t, last, context.Canceled)
	})
}

// TestReadOptionsRefusedBeforeSending: options that make no sense for a
// call are an error matching ErrInvalidOption, yielded (or returned) before
// any call.
func TestReadOptionsRefusedBeforeSending(t *testing.T) {
	e := newEvents(t)
	ev := &Event{Stream: "s1", Seq: "e001", Kind: "click", At: 1}
	otherTable, err := mapper.NewTable[Event](e.calls, e.name+"-other")
	require.NoError(t, err)
	fromOtherTable, err := otherTable.CursorAfter(ev)
	require.NoError(t, err)
	fromIndex, err := e.table.CursorAfter(ev, byKind)
	require.NoError(t, err)
	fromTable, err := e.table.CursorAfter(ev)
	require.NoError(t, err)

	firstErr := func(it func(func(*Event, error) bool)) error {
		n := 0
		var first error
		for item, err := range it {
			assert.Nil(t, item)
			if n++; n == 1 {
				first = err
			}
		}
		assert.Equal(t, 1, n, "one error, then the end")
		return first
	}
	cases := map[string]func() error{
		"Get Descending": func() error { _, err := e.table.Get(e.ctx, *ev, mapper.Descending()); return err },
		"Get Segments":   func() error { _, err := e.table.Get(e.ctx, *ev, mapper.Segments(2)); return err },
		"Get Index":      func() error { _, err := e.table.Get(e.ctx, *ev, byKind); return err },
		"Get Limit":      func() error { _, err := e.table.Get(e.ctx, *ev, mapper.Limit(1)); return err },
		"GetAll Filter": func() error {
			_, err := e.table.GetAll(e.ctx, []Event{*ev}, mapper.Filter(expression.Name("kind").AttributeExists()))
			return err
		},
		"GetAll StartAfter": func() error { _, err := e.table.GetAll(e.ctx, []Event{*ev}, mapper.StartAfter(fromTable)); return err },
		"Query Segments":    func() error { return firstErr(e.table.Query(e.ctx, inS1, mapper.Segments(2))) },
		"Query Limit(0)":    func() error { return firstErr(e.table.Query(e.ctx, inS1, mapper.Limit(0))) },
		"Query PageSize(0)": func() error { return firstErr(e.table.Query(e.ctx, inS1, mapper.PageSize(0))) },
		"Query no key":      func() error { return firstErr(e.table.Query(e.ctx, expression.KeyConditionBuilder{})) },
		"Query empty filter": func() error {
			return firstErr(e.table.Query(e.ctx, inS1, mapper.Filter(expression.ConditionBuilder{})))
		},
		"Query cursor of another table": func() error {
			return firstErr(e.table.Query(e.ctx, inS1, mapper.StartAfter(fromOtherTable)))
		},
		"Query index cursor on the table": func() error { return firstErr(e.table.Query(e.ctx, inS1, mapper.StartAfter(fromIndex))) },
		"Query table cursor on the index": func() error {
			return firstErr(e.table.Query(e.ctx, expression.Key("kind").Equal(expression.Value("click")), byKind, mapper.StartAfter(fromTable)))
		},
		"Query garbage cursor":     func() error { return firstErr(e.table.Query(e.ctx, inS1, mapper.StartAfter("not a cursor"))) },
		"Scan Descending":          func() error { return firstErr(e.table.Scan(e.ctx, mapper.Descending())) },
		"Scan Segments(0)":         func() error { return firstErr(e.table.Scan(e.ctx, mapper.Segments(0))) },
		"Scan StartAfter Segments": func() error { return firstErr(e.table.Scan(e.ctx, mapper.Segments(2), mapper.StartAfter(fromTable))) },
		"CursorAfter index without keys": func() error {
			_, err := e.table.CursorAfter(ev, mapper.Index(byKindName))
			return err
		},
	}
	for name, call := range cases {
		t.Run(name, func(t *testing.T) {
			e.calls.Reset()
			err := call()
			assert.ErrorIs(t, err, mapper.ErrInvalidOption)
			assert.Equal(t, int64(0), e.calls.Total(), "no call sent")
		})
	}
	// A key condition on an attribute that is not a key of the table (or
	// of the index read) is refused before sending too.
	e.calls.Reset()
	err = firstErr(e.table.Query(e.ctx, expression.Key("kind").Equal(expression.Value("click"))))
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
	assert.Contains(t, err.Error(), `names "kind"`)
	err = firstErr(e.table.Query(e.ctx, expression.Key("kind").Equal(expression.Value("click")).And(expression.Key("seq").Equal(expression.Value("x"))), byKind))
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
	assert.Contains(t, err.Error(), `names "seq"`)
	err = firstErr(e.table.Query(e.ctx, expression.Key("kind").Equal(expression.Value("click")), mapper.Index("undeclared")))
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
	assert.Contains(t, err.Error(), "not declared")
	assert.Zero(t, e.calls.Total(), "no call sent")
}
