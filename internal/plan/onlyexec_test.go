package plan_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// singleWrites are the SDK calls that write one item: the executor (Exec)
// alone sends them.
var singleWrites = map[string]bool{"PutItem": true, "UpdateItem": true, "DeleteItem": true}

// outsideLibrary are the folders, from the module's root, whose code is
// not the library's: the engine (it serves the calls), its tools, the
// examples, and the benchmarks (a module of their own).
var outsideLibrary = []string{"internal/engine", "internal/tools", "examples", "bench"}

// TestOnlyExecWrites fails on a PutItem, UpdateItem or DeleteItem call in
// the library's non-test code outside this package: every single-item
// write goes through Exec, which renders once, sends once and settles a
// lost answer by one rule.
func TestOnlyExecWrites(t *testing.T) {
	calls := singleWriteCalls(t, filepath.Join("..", ".."))
	for _, c := range calls {
		if !strings.HasPrefix(c, "internal/plan/") {
			t.Errorf("%s: a single-item write outside the executor (send it with plan.Exec)", c)
		}
	}
	if len(calls) == 0 {
		t.Fatal("no single-item write found at all, not even the executor's: the walk is broken")
	}
}

// singleWriteCalls returns the places (path:line: call) of every call of
// a method named PutItem, UpdateItem or DeleteItem in the non-test Go
// files under root, but for the folders outsideLibrary.
func singleWriteCalls(t *testing.T, root string) []string {
	t.Helper()
	var calls []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, o := range outsideLibrary {
				if rel == o {
					return filepath.SkipDir
				}
			}
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && singleWrites[sel.Sel.Name] {
				calls = append(calls, rel+":"+strconv.Itoa(fset.Position(call.Pos()).Line)+": "+sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

// TestSingleWriteCallsFindsOne holds the finder to a call it must find and
// to one it must not (a test file).
func TestSingleWriteCallsFindsOne(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package a\nfunc f(c interface{ UpdateItem(int) }) { c.UpdateItem(1) }\n")
	write("a_test.go", "package a\nfunc g(c interface{ PutItem(int) }) { c.PutItem(1) }\n")
	calls := singleWriteCalls(t, dir)
	if len(calls) != 1 || calls[0] != "a.go:2: UpdateItem" {
		t.Fatalf("found %q, want the one UpdateItem of a.go", calls)
	}
}
