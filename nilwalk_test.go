package optimist_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

type walkItem struct {
	ID      string `dynamo:"id,hash"`
	N       int    `dynamo:"n"`
	Version int64  `dynamo:"v,version"`
}

type walkEntity struct {
	ID string `dynamo:"id"`
}

// walkFuncs are the exported functions of the packages walked, generic
// ones instantiated with walkItem; TestNilAndZeroArgumentsNeverPanic
// checks the list against the packages' source.
var walkFuncs = map[string]any{
	"mapper.All": mapper.All[walkItem], "mapper.Also": mapper.Also, "mapper.Backoff": mapper.Backoff,
	"mapper.ConsistentRead": mapper.ConsistentRead, "mapper.CreateTable": mapper.CreateTable[walkItem],
	"mapper.Descending": mapper.Descending, "mapper.ExactlyOnce": mapper.ExactlyOnce, "mapper.ExactlyOnceToken": mapper.ExactlyOnceToken,
	"mapper.Fence": mapper.Fence, "mapper.Filter": mapper.Filter, "mapper.If": mapper.If, "mapper.InPartition": mapper.InPartition,
	"mapper.Index": mapper.Index, "mapper.IndexThroughput": mapper.IndexThroughput, "mapper.Limit": mapper.Limit,
	"mapper.MaxAttempts": mapper.MaxAttempts, "mapper.MaxWait": mapper.MaxWait, "mapper.NewCollection": mapper.NewCollection,
	"mapper.NewEntity": mapper.NewEntity[walkItem], "mapper.NewTable": mapper.NewTable[walkItem], "mapper.Old": mapper.Old[walkItem],
	"mapper.Outside": mapper.Outside, "mapper.PageSize": mapper.PageSize, "mapper.Project": mapper.Project,
	"mapper.ProjectInclude": mapper.ProjectInclude, "mapper.ProjectKeysOnly": mapper.ProjectKeysOnly,
	"mapper.Provisioned": mapper.Provisioned, "mapper.ReadCapacity": mapper.ReadCapacity, "mapper.Segments": mapper.Segments,
	"mapper.StartAfter": mapper.StartAfter, "mapper.Unversioned": mapper.Unversioned, "mapper.WriteCapacity": mapper.WriteCapacity,
	"observe.FormatKey": observe.FormatKey, "observe.Multi": observe.Multi, "observe.Slog": observe.Slog,
	"observe.WantsCapacity":   observe.WantsCapacity,
	"pessimistic.CreateTable": pessimistic.CreateTable, "pessimistic.Data": pessimistic.Data,
	"pessimistic.FIFO": pessimistic.FIFO, "pessimistic.Heartbeat": pessimistic.Heartbeat,
	"pessimistic.ItemLockAttributes": pessimistic.ItemLockAttributes, "pessimistic.LeaseDuration": pessimistic.LeaseDuration,
	"pessimistic.LockItem": pessimistic.LockItem[walkItem], "pessimistic.New": pessimistic.New,
	"pessimistic.Observer": pessimistic.Observer, "pessimistic.Owner": pessimistic.Owner,
	"pessimistic.PollInterval": pessimistic.PollInterval, "pessimistic.ReleaseOnDone": pessimistic.ReleaseOnDone,
	"pessimistic.Wait": pessimistic.Wait, "pessimistic.WriteRegion": pessimistic.WriteRegion,
	"txn.Backoff": txn.Backoff, "txn.Check": txn.Check, "txn.Delete": txn.Delete, "txn.Get": txn.Get,
	"txn.GetItem": txn.GetItem, "txn.If": txn.If, "txn.MaxAttempts": txn.MaxAttempts, "txn.MaxItems": txn.MaxItems,
	"txn.New": txn.New, "txn.Observer": txn.Observer, "txn.Put": txn.Put, "txn.Token": txn.Token, "txn.Update": txn.Update,
	"txn.WriteRegion": txn.WriteRegion,
	"unit.Begin":      unit.Begin, "unit.Coordinator": unit.Coordinator, "unit.CreateTable": unit.CreateTable,
	"unit.Get": unit.Get[walkItem], "unit.GetAll": unit.GetAll[walkItem], "unit.Heartbeat": unit.Heartbeat,
	"unit.KeepAge": unit.KeepAge, "unit.LeaseDuration": unit.LeaseDuration, "unit.List": unit.List,
	"unit.Observer": unit.Observer, "unit.Owner": unit.Owner, "unit.Recover": unit.Recover, "unit.Wait": unit.Wait,
	"unit.WriteRegion": unit.WriteRegion,
	"update.Add":       update.Add, "update.Append": update.Append, "update.Delete": update.Delete, "update.ParsePath": update.ParsePath,
	"update.Prepend": update.Prepend, "update.Remove": update.Remove, "update.Set": update.Set,
	"update.SetIfNotExists": update.SetIfNotExists,
	"version.Condition":     version.Condition, "version.IsConflict": version.IsConflict,
}

// walkReceivers are, per exported type with methods, the receivers its
// methods are called on: nil, zero, and one in working order (made with a
// client that sends nothing).
func walkReceivers(t *testing.T) map[string][]any {
	none := &ddbtest.CountingClient{} // every call counted and refused: nothing leaves
	table, err := mapper.NewTable[walkItem](none, "walk")
	if err != nil {
		t.Fatal(err)
	}
	d := mapper.Design{Table: "walk-design", PK: "pk", SK: "sk"}
	ent, err := mapper.NewEntity[walkEntity](none, d, mapper.Entity{Type: "W", Key: mapper.Keys{PK: "W#{ID}", SK: "W"}})
	if err != nil {
		t.Fatal(err)
	}
	coll, err := mapper.NewCollection(ent)
	if err != nil {
		t.Fatal(err)
	}
	locker, err := pessimistic.New(none, "walk-locks")
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]any{
		"mapper.BatchError":              {(*mapper.BatchError)(nil), &mapper.BatchError{}},
		"mapper.Capacity":                {(*mapper.Capacity)(nil), &mapper.Capacity{}},
		"mapper.Collection":              {(*mapper.Collection)(nil), &mapper.Collection{}, coll},
		"mapper.ConditionError":          {(*mapper.ConditionError)(nil), &mapper.ConditionError{}},
		"mapper.Design":                  {mapper.Design{}, &d},
		"mapper.KeyCond":                 {mapper.KeyCond{}},
		"mapper.Mismatch":                {mapper.Mismatch{}},
		"mapper.MismatchError":           {(*mapper.MismatchError)(nil), &mapper.MismatchError{}},
		"mapper.MissingError":            {(*mapper.MissingError)(nil), &mapper.MissingError{}},
		"mapper.SchemaError":             {(*mapper.SchemaError)(nil), &mapper.SchemaError{}},
		"mapper.Table":                   {(*mapper.Table[walkItem])(nil), &mapper.Table[walkItem]{}, table},
		"mapper.WrongTypeError":          {(*mapper.WrongTypeError)(nil), &mapper.WrongTypeError{}},
		"observe.Func":                   {observe.Func(nil)},
		"observe.Kind":                   {observe.Kind(0)},
		"observe.Phase":                  {observe.Phase(0)},
		"pessimistic.HolderChangedError": {(*pessimistic.HolderChangedError)(nil), &pessimistic.HolderChangedError{}},
		"pessimistic.ItemLock":           {(*pessimistic.ItemLock[walkItem])(nil), &pessimistic.ItemLock[walkItem]{}},
		"pessimistic.Lease":              {(*pessimistic.Lease)(nil), &pessimistic.Lease{}},
		"pessimistic.Locker":             {(*pessimistic.Locker)(nil), &pessimistic.Locker{}, locker},
		"pessimistic.NotAcquiredError":   {(*pessimistic.NotAcquiredError)(nil), &pessimistic.NotAcquiredError{}},
		"txn.CanceledError":              {(*txn.CanceledError)(nil), &txn.CanceledError{}},
		"txn.Op":                         {txn.Op{}},
		"txn.Tx":                         {(*txn.Tx)(nil), &txn.Tx{}, txn.New(none)},
		"unit.Unit":                      {(*unit.Unit)(nil), &unit.Unit{}},
		"update.Builder":                 {(*update.Builder)(nil), &update.Builder{}, update.Set("a", 1)},
		"update.Path":                    {update.Path(nil), update.Path{}},
		"version.ConflictError":          {(*version.ConflictError)(nil), &version.ConflictError{}},
		"version.UnknownOutcomeError":    {(*version.UnknownOutcomeError)(nil), &version.UnknownOutcomeError{}},
	}
}

// exportedAPI lists, from the packages' source (go/parser), their exported
// functions ("pkg.Name") and the exported methods of their exported types
// ("pkg.Type.Name").
func exportedAPI(t *testing.T, dirs ...string) []string {
	var out []string
	for _, dir := range dirs {
		fset := token.NewFileSet()
		// Every non-test Go file of the directory (parser.ParseDir is
		// deprecated); build constraints are not read, and none of these
		// packages has files for other platforms with exported functions.
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || !fd.Name.IsExported() {
					continue
				}
				if fd.Recv == nil {
					out = append(out, dir+"."+fd.Name.Name)
					continue
				}
				rt := fd.Recv.List[0].Type
				if s, ok := rt.(*ast.StarExpr); ok {
					rt = s.X
				}
				if ix, ok := rt.(*ast.IndexExpr); ok {
					rt = ix.X
				}
				if id, ok := rt.(*ast.Ident); ok && id.IsExported() {
					out = append(out, dir+"."+id.Name+"."+fd.Name.Name)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestNilAndZeroArgumentsNeverPanic calls every exported function and
// method of mapper, txn, update, version, pessimistic, unit and observe
// with the zero value of each argument (a context.Context excepted: Go's
// rule is never to pass a nil one) on nil, zero and working receivers,
// and the iterators they return once; none may panic. The lists above are
// checked complete against the packages' source.
func TestNilAndZeroArgumentsNeverPanic(t *testing.T) {
	api := exportedAPI(t, "mapper", "txn", "update", "version", "pessimistic", "unit", "observe")
	recv := walkReceivers(t)
	funcs, calls := 0, 0
	for _, name := range api {
		parts := strings.Split(name, ".")
		var targets []reflect.Value
		if len(parts) == 2 {
			f, ok := walkFuncs[name]
			if !ok {
				t.Errorf("%s is not in walkFuncs", name)
				continue
			}
			targets = append(targets, reflect.ValueOf(f))
		} else {
			rs, ok := recv[parts[0]+"."+parts[1]]
			if !ok {
				t.Errorf("no receivers for %s", name)
				continue
			}
			for _, r := range rs {
				if m := reflect.ValueOf(r).MethodByName(parts[2]); m.IsValid() {
					targets = append(targets, m)
				}
			}
			if len(targets) == 0 {
				t.Errorf("%s: no receiver has the method", name)
				continue
			}
		}
		funcs++
		for i, fn := range targets {
			calls += callZero(t, fmt.Sprintf("%s (receiver %d)", name, i), fn)
		}
	}
	t.Logf("%d exported functions and methods, %d calls with nil and zero arguments", funcs, calls)
	if funcs < 150 {
		t.Fatalf("only %d functions walked", funcs)
	}
}

// knownPanics are the calls that still panic: only one that Go makes
// itself, a value method called through a nil pointer. The walk fails on
// a panic not listed here, and on a listed call that no longer panics, so
// the list stays true.
var knownPanics = map[string]bool{
	"mapper.Capacity.Total (receiver 0)": true, // value method through a nil *Capacity: Go's own panic
}

var ctxType = reflect.TypeOf((*context.Context)(nil)).Elem()

// callZero calls fn with zero arguments, then any iterator it returns;
// it reports a panic and returns the number of calls made.
func callZero(t *testing.T, name string, fn reflect.Value) (calls int) {
	ft := fn.Type()
	n := ft.NumIn()
	if ft.IsVariadic() {
		n--
	}
	in := make([]reflect.Value, n)
	for i := range in {
		if ft.In(i) == ctxType {
			in[i] = reflect.ValueOf(context.Background())
		} else {
			in[i] = reflect.Zero(ft.In(i))
		}
	}
	panicked := true
	defer func() {
		p := recover()
		switch {
		case panicked && !knownPanics[name]:
			t.Errorf("%s panicked with nil and zero arguments: %v", name, p)
		case !panicked && knownPanics[name]:
			t.Errorf("%s no longer panics: take it off knownPanics", name)
		}
	}()
	out := fn.Call(in)
	calls++
	for _, o := range out {
		if isIterator(o.Type()) && !o.IsNil() {
			yield := reflect.MakeFunc(o.Type().In(0), func([]reflect.Value) []reflect.Value {
				return []reflect.Value{reflect.ValueOf(false)}
			})
			o.Call([]reflect.Value{yield})
			calls++
		}
	}
	panicked = false
	return calls
}

// isIterator reports whether t is an iter.Seq or iter.Seq2 shape.
func isIterator(t reflect.Type) bool {
	if t.Kind() != reflect.Func || t.NumIn() != 1 || t.NumOut() != 0 {
		return false
	}
	y := t.In(0)
	return y.Kind() == reflect.Func && y.NumOut() == 1 && y.Out(0).Kind() == reflect.Bool
}
