package optimist_test

// Part of the end-to-end suite (see mapper_test.go): the module's imports
// point one way, as DESIGN.md lays them out.

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
// non-test files import. Directories with a go.mod of their own (bench,
// otel) and examples are other programs, not layers of the library.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
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
		for _, is := range f.Imports {
			path, _ := strconv.Unquote(is.Path.Value)
			if rest, ok := strings.CutPrefix(path, modulePath+"/"); ok {
				out[pkg] = append(out[pkg], rest)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// reaches reports whether from imports to, directly or not.
func reaches(imports map[string][]string, from, to string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(p string) bool {
		if p == to {
			return true
		}
		if seen[p] {
			return false
		}
		seen[p] = true
		for _, q := range imports[p] {
			if walk(q) {
				return true
			}
		}
		return false
	}
	for _, q := range imports[from] {
		if walk(q) {
			return true
		}
	}
	return false
}

// TestImportsPointOneWay: internal packages use no layer above them (only
// observe, the events' vocabulary, and dynamolocal, the test server, both
// below every layer); observe imports no internal package that imports
// it; version, update, txn, mapper and dynamolocal import only what
// DESIGN.md allows them.
func TestImportsPointOneWay(t *testing.T) {
	imports := moduleImports(t)
	for _, p := range []string{"mapper", "txn", "observe", "internal/obs", "internal/ddbtest/counters"} {
		require.Contains(t, imports, p, "the walk found the module's packages")
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
		for _, to := range tos {
			switch {
			case internal(from) && !internal(to) && to != "observe" && to != "dynamolocal":
				bad = append(bad, from+" imports "+to+", a layer above internal/")
			case from == "observe" && reaches(imports, to, "observe"):
				bad = append(bad, "observe imports "+to+", which imports observe")
			case forbidden[from] != nil && forbidden[from](to):
				bad = append(bad, from+" imports "+to+", against DESIGN.md's layout")
			}
		}
	}
	sort.Strings(bad)
	require.Empty(t, bad)
}
