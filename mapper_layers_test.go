package optimist_test

// Part of the end-to-end suite (see mapper_test.go): the module's imports
// point one way, down the layers TestImportsPointOneWay lays out.

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const modulePath = "github.com/optimist-dynamo/optimist"

// moduleImports returns, for each package of the module (by its path
// inside the module, "." for the root), the packages of the module its
// non-test files import, and the packages that are programs (package
// main). Directories with a go.mod of their own (bench,
// otel) and examples are other programs, not layers of the library.
func moduleImports(t *testing.T) (imports map[string][]string, programs map[string]bool) {
	t.Helper()
	out := map[string][]string{}
	programs = map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			if base := d.Name(); base == "testdata" || base == "examples" || (base != "." && strings.HasPrefix(base, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		if f.Name.Name == "main" {
			programs[pkg] = true
		}
		for _, is := range f.Imports {
			path, _ := strconv.Unquote(is.Path.Value)
			if rest, ok := strings.CutPrefix(path, modulePath+"/"); ok {
				out[pkg] = append(out[pkg], rest)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out, programs
}

// base is the bottom layer: packages every layer may use, which import no
// package of the module outside it. observe is the events' vocabulary, and
// imports nothing of the module at all, so that the internal packages that
// emit events (internal/obs) stay below every public layer; internal/cond
// evaluates conditions for mapper and unit as well as for the engine.
var base = map[string]bool{
	"observe": true, "internal/attempt": true, "internal/attrs": true, "internal/cond": true,
	"internal/ddbapi": true, "internal/endpoint": true, "internal/errs": true, "internal/faultwire": true,
	"internal/keytmpl": true, "internal/rnd": true, "internal/simhook": true, "internal/syncx": true,
}

// testSupport are the helpers of the module's tests, which only test files
// import. They import no public package but observe, as every internal
// package: a test gets its server from dynamolocal itself.
var testSupport = map[string]bool{"internal/ddbtest": true, "internal/ddbtest/counters": true}

// TestImportsPointOneWay: the layers, bottom up, are base (above), the
// other internal packages, and the public packages. An internal package
// imports no public package but observe; a base package imports only base
// packages, and observe none; only dynamolocal (the test server) reaches
// the embedded engine; version, update, txn, mapper and dynamolocal import
// only the public packages below them (txn never imports mapper: a table
// builds txn.Ops). Programs (package main, such as internal/tools) are not
// layers of the library.
func TestImportsPointOneWay(t *testing.T) {
	imports, programs := moduleImports(t)
	for _, p := range []string{"mapper", "txn", "observe", "internal/obs", "internal/cond", "internal/ddbtest/counters"} {
		require.Contains(t, imports, p, "the walk found the module's packages")
	}
	for p := range base {
		require.Contains(t, imports, p, "every base package exists")
	}
	internal := func(p string) bool { return strings.HasPrefix(p, "internal/") }
	forbidden := map[string]func(to string) bool{
		"version":     func(to string) bool { return !internal(to) },
		"update":      func(to string) bool { return !internal(to) && to != "version" },
		"txn":         func(to string) bool { return to == "mapper" || to == "pessimistic" || to == "unit" },
		"mapper":      func(to string) bool { return to == "pessimistic" || to == "unit" },
		"dynamolocal": func(to string) bool { return !internal(to) },
	}
	var bad []string
	for from, tos := range imports {
		if programs[from] {
			continue
		}
		for _, to := range tos {
			switch {
			case from == "observe":
				bad = append(bad, "observe imports "+to+": it imports no package of the module")
			case base[from] && !base[to]:
				bad = append(bad, from+" imports "+to+", above the base layer")
			case testSupport[to] && !testSupport[from]:
				bad = append(bad, from+" imports "+to+", which is for tests only")
			case internal(from) && !internal(to) && to != "observe":
				bad = append(bad, from+" imports "+to+", a public package above internal/")
			case to == "internal/engine" && from != "dynamolocal" && !strings.HasPrefix(from, "internal/engine"):
				bad = append(bad, from+" imports internal/engine: only dynamolocal serves the engine")
			case forbidden[from] != nil && forbidden[from](to):
				bad = append(bad, from+" imports "+to+", against the layers")
			}
		}
	}
	sort.Strings(bad)
	require.Empty(t, bad)
}
