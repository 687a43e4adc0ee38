package unitproto

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoPackageState holds that package unit, package unitproto and its
// memory (package seen) keep no package-level mutable state: every value
// they remember is held by a value its caller owns, so that two worlds in
// one process share nothing (TestTwoWorlds, unit's
// TestTwoWorldsShareNothing). A package-level var is allowed only as an
// interface check (var _ I = ...) or an error value: errors.New,
// fmt.Errorf, or another package's error (mapper.ErrLocked). init
// functions are refused too (they register process memories).
func TestNoPackageState(t *testing.T) {
	for _, dir := range []string{".", "seen", filepath.Join("..", "..", "unit")} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			n++
			for _, bad := range packageState(t, filepath.Join(dir, name)) {
				t.Errorf("%s: package-level state: %s", filepath.Join(dir, name), bad)
			}
		}
		if n == 0 {
			t.Fatalf("%s: no Go files read", dir)
		}
	}
}

// packageState lists the package-level vars and init functions of file
// that may hold mutable state.
func packageState(t *testing.T, file string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				bad = append(bad, "func init")
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, s := range d.Specs {
				vs := s.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if name.Name == "_" || i < len(vs.Values) && isErrorValue(name.Name, vs.Values[i]) {
						continue
					}
					bad = append(bad, "var "+name.Name)
				}
			}
		}
	}
	return bad
}

// isErrorValue reports whether the var name = v is an error value: a call
// of errors.New or fmt.Errorf, or a selector naming another package's
// error (Err...), for a var named err... or Err....
func isErrorValue(name string, v ast.Expr) bool {
	if !strings.HasPrefix(strings.ToLower(name), "err") {
		return false
	}
	switch v := v.(type) {
	case *ast.CallExpr:
		sel, ok := v.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && (pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf")
	case *ast.SelectorExpr:
		_, ok := v.X.(*ast.Ident)
		return ok && strings.HasPrefix(v.Sel.Name, "Err")
	}
	return false
}
