//go:build conformance

package conformance

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// side is one of the two implementations under comparison.
type side struct {
	name   string // "reference" or "subject"
	client *dynamodb.Client
}

// namer maps the logical table names and tokens of a case to the names one
// side uses: a prefix unique to the run, the side and the case.
type namer struct{ prefix string }

// T returns the table name of logical name.
func (n namer) T(logical string) string { return n.prefix + logical }

// Tok returns the ClientRequestToken of logical token (at most 36 bytes in
// all: keep logical tokens short).
func (n namer) Tok(logical string) string { return n.prefix + logical }

// step is one request of a case.
type step struct {
	// name identifies the step in reports (defaults to the operation and
	// its index).
	name string
	// req builds the SDK input (*dynamodb.XxxInput) for one side.
	req func(n namer) any
	// want is the error code expected from the reference: "" for success,
	// "*" for any outcome. A case whose reference answer differs is wrong,
	// and fails as such.
	want string
	// msgPrefix, when not empty, compares error messages only by this
	// prefix, which both must start with; why says why the rest may
	// differ.
	msgPrefix, why string
	// ordered compares Scan and BatchGetItem items in order.
	ordered bool
	// sleep waits after the step, on each side (for TTL and the like).
	sleep time.Duration
	// until, when set, resends the request (for up to settleFor) until the
	// answer satisfies it, on each side: for states that each side reaches
	// in its own time.
	until func(answer) bool
}

// answer is one side's reply to a step, in canonical form.
type answer struct {
	out  any    // canonical output tree, nil on error
	code string // API error code, "" on success
	msg  string
	err  any // canonical extra fields of the error
}

func (a answer) String() string {
	if a.code == "" {
		return "OK " + pretty(a.out)
	}
	s := a.code + ": " + a.msg
	if a.err != nil {
		s += " " + pretty(a.err)
	}
	return s
}

// divergence is a step on which the two sides disagree.
type divergence struct {
	id       string // case/step or gen/op/n
	seed     uint64 // generator seed, 0 for catalogue cases
	request  string
	ref, sub answer
	known    *KnownDivergence
}

func (d divergence) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "DIVERGENCE %s", d.id)
	if d.seed != 0 {
		fmt.Fprintf(&b, " (seed %d)", d.seed)
	}
	if d.known != nil {
		fmt.Fprintf(&b, " [known: %s]", d.known.Reason)
	}
	fmt.Fprintf(&b, "\n  request:   %s\n  reference: %s\n  subject:   %s", d.request, d.ref, d.sub)
	return b.String()
}

// pagedScan is a Scan sent page after page (following LastEvaluatedKey)
// and, when it names TotalSegments, segment after segment; the answer is
// the union of the pages: Items, Count and ScannedCount, or the first
// error. DynamoDB leaves to the implementation which items a page of a
// Limit or a segment holds, so only the union is comparable.
type pagedScan struct{ *dynamodb.ScanInput }

// pagedQuery is a Query sent page after page, following LastEvaluatedKey;
// the answer is the union of the pages: Items, Count and ScannedCount, or
// the first error. It serves Queries of an index with a Limit: items that
// tie on the index's key come in the implementation's order (DynamoDB
// defines none), so which of them a page holds, and the page's
// LastEvaluatedKey, are the implementation's choice too.
type pagedQuery struct{ *dynamodb.QueryInput }

// opName returns the DynamoDB operation of an SDK input.
func opName(in any) string {
	switch in := in.(type) {
	case *rawRequest:
		return in.Op
	case *pagedScan:
		return "Scan"
	case *pagedQuery:
		return "Query"
	}
	return strings.TrimSuffix(reflect.TypeOf(in).Elem().Name(), "Input")
}

// call sends in with c.
func call(ctx context.Context, c *dynamodb.Client, in any) (any, error) {
	switch in := in.(type) {
	case *dynamodb.CreateTableInput:
		return c.CreateTable(ctx, in)
	case *dynamodb.DescribeTableInput:
		return c.DescribeTable(ctx, in)
	case *dynamodb.UpdateTableInput:
		return c.UpdateTable(ctx, in)
	case *dynamodb.DeleteTableInput:
		return c.DeleteTable(ctx, in)
	case *dynamodb.ListTablesInput:
		return c.ListTables(ctx, in)
	case *dynamodb.UpdateTimeToLiveInput:
		return c.UpdateTimeToLive(ctx, in)
	case *dynamodb.DescribeTimeToLiveInput:
		return c.DescribeTimeToLive(ctx, in)
	case *dynamodb.GetItemInput:
		return c.GetItem(ctx, in)
	case *dynamodb.PutItemInput:
		return c.PutItem(ctx, in)
	case *dynamodb.UpdateItemInput:
		return c.UpdateItem(ctx, in)
	case *dynamodb.DeleteItemInput:
		return c.DeleteItem(ctx, in)
	case *dynamodb.QueryInput:
		return c.Query(ctx, in)
	case *dynamodb.ScanInput:
		return c.Scan(ctx, in)
	case *dynamodb.BatchGetItemInput:
		return c.BatchGetItem(ctx, in)
	case *dynamodb.BatchWriteItemInput:
		return c.BatchWriteItem(ctx, in)
	case *dynamodb.TransactGetItemsInput:
		return c.TransactGetItems(ctx, in)
	case *dynamodb.TransactWriteItemsInput:
		return c.TransactWriteItems(ctx, in)
	case *dynamodb.TagResourceInput:
		return c.TagResource(ctx, in)
	case *dynamodb.UntagResourceInput:
		return c.UntagResource(ctx, in)
	case *dynamodb.ListTagsOfResourceInput:
		return c.ListTagsOfResource(ctx, in)
	case *pagedScan:
		return scanPages(ctx, c, in.ScanInput)
	case *pagedQuery:
		return queryPages(ctx, c, in.QueryInput)
	case *rawRequest:
		return rawCall(ctx, c, in)
	}
	panic(fmt.Sprintf("conformance: no call for %T", in))
}

// scanPages runs in to its end, over every segment if it names
// TotalSegments, and returns the union of the pages.
func scanPages(ctx context.Context, c *dynamodb.Client, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
	all := &dynamodb.ScanOutput{Items: []map[string]types.AttributeValue{}}
	segments := []*int32{in.Segment}
	if in.TotalSegments != nil && *in.TotalSegments > 0 {
		segments = segments[:0]
		for i := range *in.TotalSegments {
			segments = append(segments, &i)
		}
	}
	for _, seg := range segments {
		page := *in
		page.Segment = seg
		for pages := 0; ; pages++ {
			if pages > 1000 {
				return nil, fmt.Errorf("conformance: scan: more than 1000 pages")
			}
			out, err := c.Scan(ctx, &page)
			if err != nil {
				return nil, err
			}
			all.Items = append(all.Items, out.Items...)
			all.Count += out.Count
			all.ScannedCount += out.ScannedCount
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			page.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	return all, nil
}

// queryPages runs in to its end and returns the union of the pages.
func queryPages(ctx context.Context, c *dynamodb.Client, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	all := &dynamodb.QueryOutput{}
	if in.Select != types.SelectCount {
		all.Items = []map[string]types.AttributeValue{}
	}
	page := *in
	for pages := 0; ; pages++ {
		if pages > 1000 {
			return nil, fmt.Errorf("conformance: query: more than 1000 pages")
		}
		out, err := c.Query(ctx, &page)
		if err != nil {
			return nil, err
		}
		all.Items = append(all.Items, out.Items...)
		all.Count += out.Count
		all.ScannedCount += out.ScannedCount
		if len(out.LastEvaluatedKey) == 0 {
			return all, nil
		}
		page.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// indexKeys returns the key attributes (hash, then range if any) of index
// ix of table tn as s sees them, nil if s cannot describe it. Answers are
// kept: an index's key schema never changes.
func indexKeys(ctx context.Context, s side, tn, ix string) []string {
	k := s.name + "\x00" + tn + "\x00" + ix
	indexKeysMu.Lock()
	keys, ok := indexKeysSeen[k]
	indexKeysMu.Unlock()
	if ok {
		return keys
	}
	out, err := s.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &tn})
	if err != nil || out.Table == nil {
		return nil
	}
	var schema []types.KeySchemaElement
	for _, g := range out.Table.GlobalSecondaryIndexes {
		if g.IndexName != nil && *g.IndexName == ix {
			schema = g.KeySchema
		}
	}
	for _, l := range out.Table.LocalSecondaryIndexes {
		if l.IndexName != nil && *l.IndexName == ix {
			schema = l.KeySchema
		}
	}
	for _, e := range schema {
		if e.KeyType == types.KeyTypeHash {
			keys = append([]string{*e.AttributeName}, keys...)
		} else {
			keys = append(keys, *e.AttributeName)
		}
	}
	if keys == nil {
		return nil
	}
	indexKeysMu.Lock()
	indexKeysSeen[k] = keys
	indexKeysMu.Unlock()
	return keys
}

var (
	indexKeysMu   sync.Mutex
	indexKeysSeen = map[string][]string{}
)

// sortTies sorts, in a Query answer on an index with key attributes keys,
// each run of consecutive items with equal values of those keys: DynamoDB
// sorts a Query's items by the index's keys only, and leaves the order of
// items that tie on them to the implementation (DynamoDB Local's follows a
// hash of the table's key).
func sortTies(m map[string]any, keys []string) {
	items, ok := m["Items"].([]any)
	if !ok {
		return
	}
	keyOf := func(x any) string {
		im, _ := x.(map[string]any)
		var b strings.Builder
		for _, k := range keys {
			b.WriteString(compact(im[k]))
			b.WriteByte(0)
		}
		return b.String()
	}
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && keyOf(items[j]) == keyOf(items[i]) {
			j++
		}
		sortJSON(items[i:j])
		i = j
	}
}

// unprojected matches the message that lists the attributes an index does
// not project; DynamoDB Local lists them in the order of its internal hash
// set, which DynamoDB does not document, so they are compared sorted.
var unprojected = regexp.MustCompile(`(does not project(?: one or more filter attributes:)? \[)([^\]]*)(\])`)

func sortUnprojected(msg string) string {
	return unprojected.ReplaceAllStringFunc(msg, func(s string) string {
		p := unprojected.FindStringSubmatch(s)
		names := strings.Split(p[2], ", ")
		sort.Strings(names)
		return p[1] + strings.Join(names, ", ") + p[3]
	})
}

// controlPlane serialises the table operations: DynamoDB Local answers
// InternalFailure to some CreateTable and UpdateTable calls when others run
// at the same time.
var controlPlane sync.Mutex

// send runs in on s and returns the canonical answer. ordered keeps the
// order of Scan and BatchGetItem items.
func send(ctx context.Context, s side, n namer, in any, ordered bool) answer {
	switch in.(type) {
	case *dynamodb.CreateTableInput, *dynamodb.UpdateTableInput, *dynamodb.DeleteTableInput:
		controlPlane.Lock()
		defer controlPlane.Unlock()
	}
	out, err := call(ctx, s.client, in)
	strip := func(v string) string { return strings.ReplaceAll(v, n.prefix, "") }
	if err != nil {
		var ae smithy.APIError
		if !errors.As(err, &ae) {
			return answer{code: "<client error>", msg: strip(err.Error())}
		}
		a := answer{code: ae.ErrorCode(), msg: sortUnprojected(strip(ae.ErrorMessage()))}
		if m, ok := canon(reflect.ValueOf(ae), strip).(map[string]any); ok {
			// Code repeats the code; Fault is the SDK's guess.
			for _, k := range []string{"Message", "ErrorCodeOverride", "Code", "Fault"} {
				delete(m, k)
			}
			if len(m) > 0 {
				sortSets(m)
				a.err = m
			}
		}
		return a
	}
	if lt, ok := out.(*dynamodb.ListTablesOutput); ok {
		// Other cases and runs share the servers: keep this case's tables.
		var kept []string
		for _, name := range lt.TableNames {
			if strings.HasPrefix(name, n.prefix) {
				kept = append(kept, name)
			}
		}
		lt.TableNames, lt.LastEvaluatedTableName = kept, nil
	}
	c := canon(reflect.ValueOf(out), strip)
	if m, ok := c.(map[string]any); ok {
		normalise(opName(in), m, ordered)
		q, _ := in.(*dynamodb.QueryInput)
		if pq, ok := in.(*pagedQuery); ok {
			q = pq.QueryInput
		}
		if q != nil && q.IndexName != nil && q.TableName != nil {
			if keys := indexKeys(ctx, s, *q.TableName, *q.IndexName); keys != nil {
				sortTies(m, keys)
			}
		}
	}
	return answer{out: c}
}

// volatile names the output fields that differ from one table or run to
// the next on any implementation: they are not compared.
var volatile = map[string]bool{
	"ResultMetadata":                    true,
	"TableArn":                          true,
	"TableId":                           true,
	"IndexArn":                          true,
	"CreationDateTime":                  true,
	"LastIncreaseDateTime":              true,
	"LastDecreaseDateTime":              true,
	"LastUpdateToPayPerRequestDateTime": true,
	"LatestStreamArn":                   true,
	"LatestStreamLabel":                 true,
}

// canon turns an SDK value into a tree of maps, slices, strings, numbers
// and booleans that encoding/json prints deterministically: attribute
// values in DynamoDB's JSON shape, structs as maps of their set fields
// (without volatile ones), and strip applied to every string and map key.
func canon(v reflect.Value, strip func(string) string) any {
	if !v.IsValid() {
		return nil
	}
	if v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		if av, ok := v.Interface().(types.AttributeValue); ok {
			return canonAV(av, strip)
		}
		if v.Kind() == reflect.Interface {
			return canon(v.Elem(), strip)
		}
		return canon(v.Elem(), strip)
	}
	if t, ok := v.Interface().(time.Time); ok {
		return t.UTC().Format(time.RFC3339Nano)
	}
	switch v.Kind() {
	case reflect.Struct:
		m := map[string]any{}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || volatile[f.Name] {
				continue
			}
			if c := canon(v.Field(i), strip); c != nil {
				m[f.Name] = c
			}
		}
		return m
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		m := map[string]any{}
		for _, k := range v.MapKeys() {
			m[strip(fmt.Sprint(k.Interface()))] = canon(v.MapIndex(k), strip)
		}
		return m
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes())
		}
		s := make([]any, v.Len())
		for i := range s {
			s[i] = canon(v.Index(i), strip)
		}
		return s
	case reflect.String:
		if v.String() == "" {
			return nil // an unset enum
		}
		return strip(v.String())
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Float32, reflect.Float64:
		return v.Float()
	}
	return fmt.Sprintf("<%s>", v.Type())
}

// canonAV is an attribute value in DynamoDB's JSON shape.
func canonAV(av types.AttributeValue, strip func(string) string) any {
	b64 := base64.StdEncoding.EncodeToString
	list := func(ss []string) []any {
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = strip(s)
		}
		return out
	}
	switch av := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": strip(av.Value)}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": av.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": b64(av.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": av.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": av.Value}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": list(av.Value)}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": list(av.Value)}
	case *types.AttributeValueMemberBS:
		out := make([]any, len(av.Value))
		for i, b := range av.Value {
			out[i] = b64(b)
		}
		return map[string]any{"BS": out}
	case *types.AttributeValueMemberL:
		out := make([]any, len(av.Value))
		for i, e := range av.Value {
			out[i] = canonAV(e, strip)
		}
		return map[string]any{"L": out}
	case *types.AttributeValueMemberM:
		out := map[string]any{}
		for k, e := range av.Value {
			out[strip(k)] = canonAV(e, strip)
		}
		return map[string]any{"M": out}
	}
	return fmt.Sprintf("<%T>", av)
}

// normalise removes from a canonical output what carries no meaning in
// DynamoDB's documentation: the order of set elements, of Scan and
// BatchGetItem items (unless ordered), of a table's indexes and attribute
// definitions.
func normalise(op string, m map[string]any, ordered bool) {
	sortSets(m)
	// A request on several tables reports their capacity in no documented
	// order.
	if cc, ok := m["ConsumedCapacity"].([]any); ok {
		sortJSON(cc)
	}
	switch op {
	case "Scan":
		if !ordered {
			sortJSON(m["Items"])
		}
	case "BatchGetItem":
		if !ordered {
			if r, ok := m["Responses"].(map[string]any); ok {
				for _, items := range r {
					sortJSON(items)
				}
			}
		}
		if u, ok := m["UnprocessedKeys"].(map[string]any); ok && len(u) == 0 {
			delete(m, "UnprocessedKeys")
		}
		if _, ok := m["UnprocessedKeys"]; ok {
			splitBatchGet(m)
		}
	case "BatchWriteItem":
		if u, ok := m["UnprocessedItems"].(map[string]any); ok && len(u) == 0 {
			delete(m, "UnprocessedItems")
		}
	}
	for _, k := range []string{"Table", "TableDescription"} {
		if td, ok := m[k].(map[string]any); ok {
			for _, f := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes", "AttributeDefinitions", "Replicas"} {
				sortJSON(td[f])
			}
		}
	}
}

// sortSets sorts the elements of every SS, NS and BS in a canonical tree:
// DynamoDB documents sets as unordered.
func sortSets(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if (k == "SS" || k == "NS" || k == "BS") && len(v) == 1 {
				if s, ok := e.([]any); ok {
					sort.Slice(s, func(i, j int) bool { return fmt.Sprint(s[i]) < fmt.Sprint(s[j]) })
				}
				continue
			}
			sortSets(e)
		}
	case []any:
		for _, e := range v {
			sortSets(e)
		}
	}
}

// sortJSON sorts a canonical slice by the JSON of its elements.
func sortJSON(v any) {
	s, ok := v.([]any)
	if !ok {
		return
	}
	keys := make([]string, len(s))
	idx := make([]int, len(s))
	for i, e := range s {
		keys[i] = compact(e)
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	sorted := make([]any, len(s))
	for i, j := range idx {
		sorted[i] = s[j]
	}
	copy(s, sorted)
}

// compactNested is compact with the numbers nested in lists and maps
// spelled canonically, so that two spellings of one value agree: see
// NestedNumberSpelling in known.go for why.
func compactNested(v any) string {
	return compact(nestedNumbers(v, false))
}

// nestedNumbers returns a copy of the answer tree v with every N and NS
// element inside an L or M attribute value in attrs.CanonicalNumber's
// spelling; inside reports whether v is an element of an L or M.
func nestedNumbers(v any, inside bool) any {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 1 {
			for k, e := range v {
				switch e := e.(type) {
				case []any:
					if k == "L" {
						out := make([]any, len(e))
						for i, x := range e {
							out[i] = nestedNumbers(x, true)
						}
						return map[string]any{k: out}
					}
					if k == "NS" && inside {
						out := make([]any, len(e))
						for i, x := range e {
							if s, ok := x.(string); ok {
								out[i] = attrs.CanonicalNumber(s)
							} else {
								out[i] = x
							}
						}
						sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
						return map[string]any{k: out}
					}
				case map[string]any:
					if k == "M" {
						out := make(map[string]any, len(e))
						for n, x := range e {
							out[n] = nestedNumbers(x, true)
						}
						return map[string]any{k: out}
					}
				case string:
					if k == "N" && inside {
						return map[string]any{k: attrs.CanonicalNumber(e)}
					}
				}
			}
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = nestedNumbers(x, false)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = nestedNumbers(x, false)
		}
		return out
	}
	return v
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

func pretty(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return strings.TrimSpace(buf.String())
}

// describeRequest renders an SDK input for reports, with logical names.
func describeRequest(in any, n namer) string {
	strip := func(v string) string { return strings.ReplaceAll(v, n.prefix, "") }
	return opName(in) + " " + pretty(canon(reflect.ValueOf(in), strip))
}

// agree compares two answers; msgPrefix limits the message comparison to
// that many leading bytes when not empty.
func agree(ref, sub answer, msgPrefix string) bool {
	if ref.code != sub.code || compactNested(ref.out) != compactNested(sub.out) || compactNested(ref.err) != compactNested(sub.err) {
		return false
	}
	if msgPrefix != "" {
		return strings.HasPrefix(sub.msg, msgPrefix) && strings.HasPrefix(ref.msg, msgPrefix)
	}
	return ref.msg == sub.msg
}

// tally collects the divergences of a run, safe for concurrent use.
type tally struct {
	mu          sync.Mutex
	divs        []divergence
	cases, reqs int
	knownUsed   map[int]bool
	outcomes    map[string]int // reference error codes of generated requests, "" for success
}

func (t *tally) add(d divergence) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range Known {
		k := Known[i]
		if globMatch(k.Case, d.id) && strings.Contains(d.ref.String(), k.Reference) && strings.Contains(d.sub.String(), k.Subject) {
			d.known = &Known[i]
			if t.knownUsed == nil {
				t.knownUsed = map[int]bool{}
			}
			t.knownUsed[i] = true
			break
		}
	}
	t.divs = append(t.divs, d)
}

// globMatch reports whether id matches pattern, in which * stands for any
// run of characters, slashes included.
func globMatch(pattern, id string) bool {
	re := "^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, ".*") + "$"
	ok, _ := regexp.MatchString(re, id)
	return ok
}

// splitBatchGet replaces, in a BatchGetItem answer with unprocessed keys,
// which items were returned and which keys were left by the number of each
// per table: DynamoDB leaves the choice to the implementation. The keys of
// the unprocessed KeysAndAttributes are removed; its other fields stay.
func splitBatchGet(m map[string]any) {
	counts := map[string]any{}
	if r, ok := m["Responses"].(map[string]any); ok {
		for tn, items := range r {
			l, _ := items.([]any)
			counts[tn+" returned"] = len(l)
		}
	}
	if u, ok := m["UnprocessedKeys"].(map[string]any); ok {
		for tn, ka := range u {
			if kam, ok := ka.(map[string]any); ok {
				l, _ := kam["Keys"].([]any)
				counts[tn+" unprocessed"] = len(l)
				delete(kam, "Keys")
			}
		}
	}
	delete(m, "Responses")
	m["Counts (which items is the implementation's choice)"] = counts
}
