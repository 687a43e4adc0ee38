// Package replica guards the library's promises on DynamoDB global tables.
//
// A version check, a lease, a fencing token and a unit all rest on one
// fact: a conditional write is judged against the latest state of the
// item. On a global table in DynamoDB's default mode (multi-Region
// eventual consistency) that is true only within a Region: a condition is
// evaluated against the item in the writer's Region, and concurrent
// writes in two Regions are resolved later by last writer wins, silently.
// In multi-Region strong consistency a write that conflicts with one in
// another Region is refused with ReplicatedWriteConflictException instead,
// which a writer can treat as a conflict and retry.
//
// A [Guard] learns a table's replication once, from DescribeTable with the
// caller's context, and refuses writes that rely on conditions on an
// eventually consistent global table, unless the caller stated that every
// write to the table goes to one Region (and this client is in it).
package replica

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/errs"
)

// Mode is a table's replication as DynamoDB describes it.
type Mode uint8

const (
	// Single: the table has no replicas.
	Single Mode = iota
	// Eventual: a global table in multi-Region eventual consistency
	// (DynamoDB's default): last writer wins across Regions.
	Eventual
	// Strong: a global table in multi-Region strong consistency: a write
	// that conflicts with one in another Region is refused with
	// ReplicatedWriteConflictException.
	Strong
)

func (m Mode) String() string {
	switch m {
	case Single:
		return "single-Region"
	case Eventual:
		return "multi-Region eventual consistency"
	case Strong:
		return "multi-Region strong consistency"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Info is what DescribeTable says of a table's replication.
type Info struct {
	Mode Mode
	// Regions are the replicas' Regions as DescribeTable lists them.
	Regions []string
}

// Of reads the replication of the table d describes.
func Of(d *types.TableDescription) Info {
	if d == nil || (len(d.Replicas) == 0 && aws.ToString(d.GlobalTableVersion) == "") {
		return Info{Mode: Single}
	}
	in := Info{Mode: Eventual}
	if d.MultiRegionConsistency == types.MultiRegionConsistencyStrong {
		in.Mode = Strong
	}
	for _, r := range d.Replicas {
		in.Regions = append(in.Regions, aws.ToString(r.RegionName))
	}
	return in
}

// ErrUnsafe is the class of the errors a Guard returns when it refuses:
// errs.ErrGlobalTable, which the public packages export.
var ErrUnsafe = errs.ErrGlobalTable

// Error is a Guard's refusal, or its failure to learn the table's
// replication. It matches ErrUnsafe.
type Error struct {
	Table   string
	Info    Info   // what DescribeTable said; zero if it could not be asked
	Home    string // the Region the caller named for every write; "" if none
	Region  string // the Region of the client that would write
	Problem string
	Err     error // DescribeTable's error, if it failed
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: table %s: %s", ErrUnsafe.Error(), e.Table, e.Problem)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is reports whether target is ErrUnsafe.
func (e *Error) Is(target error) bool { return target == ErrUnsafe }

// Unwrap returns DescribeTable's error, if any.
func (e *Error) Unwrap() error { return e.Err }

// RegionOf returns the Region of an SDK client (a *dynamodb.Client, or
// anything with its Options method); "" when it cannot tell.
func RegionOf(c any) string {
	if o, ok := c.(interface{ Options() dynamodb.Options }); ok {
		return o.Options().Region
	}
	return ""
}

// Guard judges the writes that rely on conditions to one table. The zero
// value is not usable; see [NewGuard]. It is safe for concurrent use.
type Guard struct {
	table string
	home  string

	safe atomic.Bool // learned, and not an eventually consistent global table: nothing more to ask

	// mu is never held across DescribeTable. First Checks at once with one
	// client share its call (flights); with another client, they make
	// their own, so that none waits on a call of a client it does not
	// share (in a simulation, a client that crashed and never returns).
	mu      sync.Mutex
	learned bool
	info    Info
	flights map[any]*flight // by client (a pointer), or nil for any other
}

// flight is a DescribeTable under way, for the Checks that wait for it.
type flight struct {
	done chan struct{}
	info Info
	err  error
}

// NewGuard returns the guard of table. home is the Region the caller says
// every write to the table goes to ("" if it says nothing).
func NewGuard(table, home string) *Guard {
	return &Guard{table: table, home: home}
}

// Home returns the Region the guard's caller named for every write ("" if
// none): two guards of one table with the same home judge alike.
func (g *Guard) Home() string { return g.home }

// Check returns nil if client may make conditional writes to the table.
//
// With a home Region, Check makes no call: it refuses only a client whose
// Region it can read and which is another. Without one, the first Check
// calls DescribeTable with ctx (a client without DescribeTable cannot be
// checked, and passes), and remembers the answer: a table with no
// replicas, or in strong consistency, passes; an eventually consistent
// global table is refused, with an error that says why and what to do. A
// DescribeTable refused for want of permission is refused too (matching
// ErrUnsafe, with a hint); a missing table passes (the write will say it
// is missing); any other failure is returned as is. A check that did not
// learn the answer is made again by the next Check.
func (g *Guard) Check(ctx context.Context, client any) error {
	if g.safe.Load() {
		return nil // the common case, on every write: no lock, no call
	}
	if g.home != "" {
		if region := RegionOf(client); region != "" && region != g.home {
			return &Error{Table: g.table, Home: g.home, Region: region, Problem: fmt.Sprintf(
				"every write to it was declared to go to %s, and this client is in %s; write from a client in %s",
				g.home, region, g.home)}
		}
		return nil
	}
	info, err := g.learn(ctx, client)
	if err != nil {
		return err
	}
	if info.Mode != Eventual {
		return nil
	}
	return &Error{Table: g.table, Info: info, Region: RegionOf(client), Problem: fmt.Sprintf(
		"it is a global table (replicas in %s) in %v: a condition is checked against the item in the writer's Region only, and concurrent writes in two Regions are settled by last writer wins, so a version check, a lease or a unit cannot protect it; "+
			"if every write to it goes to one Region, name that Region (the WriteRegion option), or use multi-Region strong consistency",
		strings.Join(info.Regions, ", "), info.Mode)}
}

// remember records what the guard learned (g.mu held): a table that is
// not an eventually consistent global table needs no further check, unless
// a home Region was named (then each client's Region is checked).
func (g *Guard) remember(info Info) {
	g.info, g.learned = info, true
	g.safe.Store(info.Mode != Eventual && g.home == "")
}

// Learn records what a DescribeTable of the table the caller made says, so
// that Check makes no call of its own.
func (g *Guard) Learn(d *types.TableDescription) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.remember(Of(d))
}

// Info returns what the guard learned, and whether it learned it.
func (g *Guard) Info() (Info, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.info, g.learned
}

func (g *Guard) learn(ctx context.Context, client any) (Info, error) {
	var key any // clients that are not pointers share one flight
	if reflect.ValueOf(client).Kind() == reflect.Pointer {
		key = client
	}
	g.mu.Lock()
	if g.learned {
		defer g.mu.Unlock()
		return g.info, nil
	}
	if f, ok := g.flights[key]; ok {
		g.mu.Unlock()
		select {
		case <-f.done:
			return f.info, f.err
		case <-ctx.Done():
			return Info{}, fmt.Errorf("learning whether table %s is a global table: %w", g.table, ctx.Err())
		}
	}
	f := &flight{done: make(chan struct{})}
	if g.flights == nil {
		g.flights = map[any]*flight{}
	}
	g.flights[key] = f
	g.mu.Unlock()
	f.info, f.err = g.ask(ctx, client)
	g.mu.Lock()
	delete(g.flights, key)
	g.mu.Unlock()
	close(f.done)
	return f.info, f.err
}

// ask makes learn's DescribeTable.
func (g *Guard) ask(ctx context.Context, client any) (Info, error) {
	d, ok := client.(ddbapi.Describer)
	if !ok {
		// Nothing to ask: a client wrapper without DescribeTable. The
		// caller's docs say so.
		return g.learnt(Info{}), nil
	}
	out, err := d.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(g.table)})
	if err != nil {
		var ae smithy.APIError
		if errors.As(err, &ae) {
			switch ae.ErrorCode() {
			case "ResourceNotFoundException":
				// No table: the write fails on its own, saying so. Ask
				// again next time (it may be created).
				return Info{}, nil
			case "AccessDeniedException":
				return Info{}, &Error{Table: g.table, Err: err, Problem: "the client may not call DescribeTable, so whether it is a global table is unknown; " +
					"grant dynamodb:DescribeTable on it, or name the one Region every write goes to (the WriteRegion option)"}
			}
		}
		return Info{}, fmt.Errorf("learning whether table %s is a global table: DescribeTable: %w", g.table, err)
	}
	return g.learnt(Of(out.Table)), nil
}

// learnt records info unless another Check learned first, and returns
// what the guard knows.
func (g *Guard) learnt(info Info) Info {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.learned {
		g.remember(info)
	}
	return g.info
}

// IsReplicatedWriteConflict reports whether err is DynamoDB's refusal of a
// write that conflicts with one in another Region of a strongly
// consistent global table: nothing was written, and the write may be
// retried as after any conflict.
func IsReplicatedWriteConflict(err error) bool {
	var rw *types.ReplicatedWriteConflictException
	if errors.As(err, &rw) {
		return true
	}
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ReplicatedWriteConflictException"
}
