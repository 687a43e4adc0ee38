// Package tabledef creates a DynamoDB table from a definition and compares
// an existing table with one. It is the single implementation behind
// mapper.CreateTable and mapper's Table.Check, and the test helper
// ddbtest.CreateTable, which cannot import package mapper (mapper's own
// internal tests may import ddbtest; an import would make a cycle).
package tabledef

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Key is a key attribute: its name and type; Name "" for none.
type Key struct {
	Name string
	Type types.ScalarAttributeType
}

func (k Key) String() string {
	if k.Name == "" {
		return "none"
	}
	return fmt.Sprintf("%s (%s)", k.Name, k.Type)
}

// Index is a secondary index. A local index's Hash is the table's.
type Index struct {
	Name        string
	Local       bool
	Hash, Range Key
	// Projection; nil means ALL.
	Projection *types.Projection
	// Throughput of a global index of a provisioned table; nil: the table's.
	Throughput *types.ProvisionedThroughput
}

// Def defines a table.
type Def struct {
	Name        string
	Hash, Range Key
	Indexes     []Index
	TTL         string // attribute of the TTL, "" for none
	// Throughput nil: on-demand (PAY_PER_REQUEST).
	Throughput *types.ProvisionedThroughput
	// Wait bounds the wait until the table and its indexes are ACTIVE.
	Wait time.Duration
	// Customize, if set, changes the request before it is sent.
	Customize func(*dynamodb.CreateTableInput)
}

// Diff is one difference between a definition and a table.
type Diff struct {
	Index     string // "" for the table itself
	Part      string // "hash key", "range key", "index", "projection", "ttl"
	Attribute string // the attribute the definition names for Part ("index": its defining key), "" if none
	Expected  string
	Actual    string
}

func (d Diff) String() string {
	where := d.Part
	if d.Index != "" {
		where = "index " + d.Index + ": " + d.Part
	}
	return fmt.Sprintf("%s: want %s, table has %s", where, d.Expected, d.Actual)
}

// Text describes diffs in one line, for an error that lists them.
func Text(diffs []Diff) string {
	text := make([]string, len(diffs))
	for i, d := range diffs {
		text[i] = d.String()
	}
	return strings.Join(text, "; ")
}

func projection(p *types.Projection) types.Projection {
	if p == nil {
		return types.Projection{ProjectionType: types.ProjectionTypeAll}
	}
	return *p
}

// Input returns the CreateTable request of d.
func Input(d *Def) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{TableName: aws.String(d.Name), KeySchema: keySchema(d.Hash, d.Range)}
	if d.Throughput != nil {
		in.BillingMode = types.BillingModeProvisioned
		in.ProvisionedThroughput = d.Throughput
	} else {
		in.BillingMode = types.BillingModePayPerRequest
	}
	defs := map[string]types.ScalarAttributeType{}
	var order []string
	def := func(k Key) {
		if k.Name == "" {
			return
		}
		if _, ok := defs[k.Name]; !ok {
			order = append(order, k.Name)
		}
		defs[k.Name] = k.Type
	}
	def(d.Hash)
	def(d.Range)
	for _, ix := range d.Indexes {
		def(ix.Hash)
		def(ix.Range)
		p := projection(ix.Projection)
		if ix.Local {
			in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
				IndexName: aws.String(ix.Name), KeySchema: keySchema(ix.Hash, ix.Range), Projection: &p,
			})
			continue
		}
		g := types.GlobalSecondaryIndex{IndexName: aws.String(ix.Name), KeySchema: keySchema(ix.Hash, ix.Range), Projection: &p}
		if d.Throughput != nil {
			g.ProvisionedThroughput = d.Throughput
			if ix.Throughput != nil {
				g.ProvisionedThroughput = ix.Throughput
			}
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, g)
	}
	for _, n := range order {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: defs[n]})
	}
	if d.Customize != nil {
		d.Customize(in)
	}
	return in
}

func keySchema(hash, rng Key) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(hash.Name), KeyType: types.KeyTypeHash}}
	if rng.Name != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(rng.Name), KeyType: types.KeyTypeRange})
	}
	return ks
}

// DefaultWait bounds the wait until a table is active when Def.Wait is 0.
const DefaultWait = 5 * time.Minute

// Create creates the table of d, or accepts an existing one with d's
// schema, waits until it and its global indexes are ACTIVE, and makes sure
// TTL is enabled on d.TTL. For an existing table that differs it returns
// the differences and no error; nothing is changed then.
func Create(ctx context.Context, c ddbapi.TableAdmin, d *Def) ([]Diff, error) {
	wait := d.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	_, err := c.CreateTable(ctx, Input(d))
	var inUse *types.ResourceInUseException
	exists := errors.As(err, &inUse)
	if err != nil && !exists {
		return nil, fmt.Errorf("CreateTable: %w", err)
	}
	desc, err := waitActive(ctx, c, d.Name, wait)
	if err != nil {
		return nil, err
	}
	if exists {
		if diffs := Compare(desc, d, true); len(diffs) > 0 {
			return diffs, nil
		}
	}
	if d.TTL == "" {
		return nil, nil
	}
	if exists {
		out, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(d.Name)})
		if err != nil {
			return nil, fmt.Errorf("DescribeTimeToLive: %w", err)
		}
		ttl := out.TimeToLiveDescription
		if ttl != nil {
			switch ttl.TimeToLiveStatus {
			case types.TimeToLiveStatusEnabled, types.TimeToLiveStatusEnabling:
				if got := aws.ToString(ttl.AttributeName); got != d.TTL {
					return []Diff{{Part: "ttl", Attribute: d.TTL, Expected: fmt.Sprintf("TTL on %q", d.TTL), Actual: fmt.Sprintf("TTL on %q", got)}}, nil
				}
				return nil, nil
			case types.TimeToLiveStatusDisabling:
				return nil, fmt.Errorf("TTL of table %s is being disabled; DynamoDB allows enabling it again only once that is done", d.Name)
			}
		}
	}
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(d.Name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(d.TTL), Enabled: aws.Bool(true)},
	})
	if err != nil {
		// Another process creating the same table at the same time may
		// have enabled it first ("TimeToLive is already enabled").
		out, derr := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(d.Name)})
		if derr == nil && out.TimeToLiveDescription != nil && aws.ToString(out.TimeToLiveDescription.AttributeName) == d.TTL &&
			(out.TimeToLiveDescription.TimeToLiveStatus == types.TimeToLiveStatusEnabled || out.TimeToLiveDescription.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
			return nil, nil
		}
		return nil, fmt.Errorf("UpdateTimeToLive: %w", err)
	}
	return nil, nil
}

// waitActive polls DescribeTable until the table and its global indexes are
// ACTIVE. A table that is not found yet is waited for (DescribeTable is
// eventually consistent after CreateTable).
func waitActive(ctx context.Context, c ddbapi.TableAdmin, name string, bound time.Duration) (*types.TableDescription, error) {
	delay := 50 * time.Millisecond
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		var nf *types.ResourceNotFoundException
		switch {
		case errors.As(err, &nf):
		case err != nil:
			return nil, fmt.Errorf("DescribeTable: %w", err)
		case out.Table.TableStatus == types.TableStatusActive && gsisActive(out.Table):
			return out.Table, nil
		case out.Table.TableStatus == types.TableStatusDeleting:
			return nil, fmt.Errorf("table %s is being deleted", name)
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("table %s not ACTIVE after waiting %v: %w", name, bound, ctx.Err())
			}
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

func gsisActive(t *types.TableDescription) bool {
	for _, g := range t.GlobalSecondaryIndexes {
		if g.IndexStatus != types.IndexStatusActive && g.IndexStatus != "" {
			return false
		}
	}
	return true
}

// Check describes the table d names (one DescribeTable) and compares it
// with d's keys and key types (Compare without projections): the check of
// an existing table that mapper, pessimistic's lock table and unit's
// coordinator table make. It returns the description too, for a caller
// that learns more from it (whether the table is global). DescribeTable's
// error is returned as it is, for the caller to wrap in its own words.
func Check(ctx context.Context, c ddbapi.Describer, d *Def) (*types.TableDescription, []Diff, error) {
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(d.Name)})
	if err != nil {
		return nil, nil, err
	}
	if out.Table == nil {
		return nil, nil, errors.New("DescribeTable returned no table")
	}
	return out.Table, Compare(out.Table, d, false), nil
}

// Compare lists the differences between the table desc and d: the key
// schema and key types of the table and of each index d names (an index of
// the table that d does not name is no difference), and, if projections,
// the projection of each index. TTL is not compared (DescribeTable does not
// report it).
func Compare(desc *types.TableDescription, d *Def, projections bool) []Diff {
	types_ := map[string]types.ScalarAttributeType{}
	for _, a := range desc.AttributeDefinitions {
		types_[aws.ToString(a.AttributeName)] = a.AttributeType
	}
	keyOf := func(ks []types.KeySchemaElement) (hash, rng Key) {
		for _, k := range ks {
			n := aws.ToString(k.AttributeName)
			switch k.KeyType {
			case types.KeyTypeHash:
				hash = Key{n, types_[n]}
			case types.KeyTypeRange:
				rng = Key{n, types_[n]}
			}
		}
		return hash, rng
	}
	var diffs []Diff
	keys := func(index string, ks []types.KeySchemaElement, hash, rng Key) {
		h, r := keyOf(ks)
		if h != hash {
			diffs = append(diffs, Diff{Index: index, Part: "hash key", Attribute: hash.Name, Expected: hash.String(), Actual: h.String()})
		}
		if r != rng {
			diffs = append(diffs, Diff{Index: index, Part: "range key", Attribute: rng.Name, Expected: rng.String(), Actual: r.String()})
		}
	}
	keys("", desc.KeySchema, d.Hash, d.Range)
	for _, ix := range d.Indexes {
		var ks []types.KeySchemaElement
		var proj *types.Projection
		found, other := false, false
		for _, g := range desc.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == ix.Name {
				ks, proj, found, other = g.KeySchema, g.Projection, true, ix.Local
			}
		}
		for _, l := range desc.LocalSecondaryIndexes {
			if aws.ToString(l.IndexName) == ix.Name {
				ks, proj, found, other = l.KeySchema, l.Projection, true, !ix.Local
			}
		}
		kind := map[bool]string{true: "local", false: "global"}
		// The index as a whole is the concern of the attribute that
		// defines it: a global index's hash key, a local index's range key
		// (its hash key is the table's).
		owner := ix.Hash.Name
		if ix.Local {
			owner = ix.Range.Name
		}
		switch {
		case !found:
			diffs = append(diffs, Diff{Index: ix.Name, Part: "index", Attribute: owner,
				Expected: fmt.Sprintf("a %s index (hash %s, range %s)", kind[ix.Local], ix.Hash, ix.Range), Actual: "no such index"})
			continue
		case other:
			diffs = append(diffs, Diff{Index: ix.Name, Part: "index", Attribute: owner,
				Expected: "a " + kind[ix.Local] + " index", Actual: "a " + kind[!ix.Local] + " index"})
			continue
		}
		keys(ix.Name, ks, ix.Hash, ix.Range)
		if projections {
			want, got := projection(ix.Projection), projection(proj)
			if !sameProjection(want, got) {
				diffs = append(diffs, Diff{Index: ix.Name, Part: "projection", Expected: projString(want), Actual: projString(got)})
			}
		}
	}
	return diffs
}

func sameProjection(a, b types.Projection) bool {
	if a.ProjectionType != b.ProjectionType {
		return false
	}
	if a.ProjectionType != types.ProjectionTypeInclude {
		return true
	}
	// The attribute of units' locks is projected by CreateTable, and tables
	// made before it was do not need it to match.
	notLock := func(s string) bool { return s == plan.LockAttr }
	x, y := slices.DeleteFunc(slices.Clone(a.NonKeyAttributes), notLock), slices.DeleteFunc(slices.Clone(b.NonKeyAttributes), notLock)
	sort.Strings(x)
	sort.Strings(y)
	return slices.Equal(x, y)
}

func projString(p types.Projection) string {
	if p.ProjectionType == types.ProjectionTypeInclude {
		return fmt.Sprintf("INCLUDE %s", strings.Join(p.NonKeyAttributes, ", "))
	}
	return string(p.ProjectionType)
}
