package readme

import (
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository's root, from this package's directory.
const root = "../../.."

// programs returns the snippets of every example program and its test.
func programs(t *testing.T) []Snippet {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "examples", "*", "main.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	tests, err := filepath.Glob(filepath.Join(root, "examples", "*", "*_test.go"))
	require.NoError(t, err)
	files = append(files, tests...)
	var all []Snippet
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		rel, err := filepath.Rel(root, f)
		require.NoError(t, err)
		snippets, err := Snippets(rel, string(src))
		require.NoError(t, err)
		all = append(all, snippets...)
	}
	return all
}

// TestSnippetsAreFormatted: what a reader copies from the README is
// gofmt's output (marker lines removed can leave two blank lines).
func TestSnippetsAreFormatted(t *testing.T) {
	for _, s := range programs(t) {
		got, err := format.Source([]byte(s.Code))
		if assert.NoError(t, err, "%s: snippet %q", s.Program, s.Name) {
			assert.Equal(t, s.Code, string(got), "%s: snippet %q is not as gofmt formats it", s.Program, s.Name)
		}
	}
}

func readmeMD(t *testing.T) string {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	return string(md)
}

// TestEveryGoBlockIsAProgramsSnippet: every ```go block of the README is a
// marked snippet of an example program, word for word, and every snippet
// is in the README. The programs are compiled, and run against DynamoDB
// Local by their own tests, so the README's code compiles and runs.
func TestEveryGoBlockIsAProgramsSnippet(t *testing.T) {
	snippets := programs(t)
	byCode := map[string]Snippet{}
	for _, s := range snippets {
		byCode[s.Code] = s
	}
	shown := map[string]bool{}
	goBlocks := 0
	for _, b := range Blocks(readmeMD(t)) {
		if b.Lang != "go" {
			continue
		}
		goBlocks++
		if s, ok := byCode[b.Code]; ok {
			shown[s.Program+" "+s.Name] = true
			continue
		}
		// Show the difference from the snippet it was likely copied from:
		// the one whose first line it shares.
		first, _, _ := strings.Cut(b.Code, "\n")
		i := slices.IndexFunc(snippets, func(s Snippet) bool { return strings.HasPrefix(s.Code, first+"\n") })
		if i < 0 {
			t.Errorf("README.md:%d: a ```go block that is no example program's snippet:\n%s", b.Line, b.Code)
			continue
		}
		s := snippets[i]
		assert.Equal(t, s.Code, b.Code, "README.md:%d: the block is not %s's snippet %q (copy it over)", b.Line, s.Program, s.Name)
	}
	assert.Positive(t, goBlocks)
	for _, s := range snippets {
		assert.True(t, shown[s.Program+" "+s.Name], "%s: snippet %q is not in README.md", s.Program, s.Name)
	}
}

// TestQuickStartIsAProgram: the README's first ```go block, the quick
// start, is a whole program, to be saved as main.go.
func TestQuickStartIsAProgram(t *testing.T) {
	for _, b := range Blocks(readmeMD(t)) {
		if b.Lang != "go" || !strings.Contains(b.Code, "\npackage main\n") {
			continue
		}
		assert.Contains(t, b.Code, "\nfunc main() {\n")
		assert.Contains(t, b.Code, "\nimport (\n")
		return
	}
	t.Error("README.md has no ```go block with a whole program")
}

var testName = regexp.MustCompile(`\b(Test|Benchmark)[A-Z][A-Za-z0-9_]*`)

// TestNamedTestsExist: each test or benchmark the README names as the
// evidence of a claim exists.
func TestNamedTestsExist(t *testing.T) {
	names := map[string]bool{}
	for _, n := range testName.FindAllString(readmeMD(t), -1) {
		names[n] = false
	}
	require.NotEmpty(t, names)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for n := range names {
			if strings.Contains(string(src), "func "+n+"(") {
				names[n] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	for n, found := range names {
		assert.True(t, found, "README.md names %s, which no _test.go file declares", n)
	}
}

func TestSnippets(t *testing.T) {
	src := `package x

// readme:begin a
type T int

// readme:end a
func f() {
	// readme:begin a
	// readme:begin b
	x := 1
	// readme:end b
	_ = x
	// readme:end a
}
`
	src += `
// readme:begin c
func g() {}

// readme:begin d

func h() {}

// readme:end d
// readme:end c
`
	got, err := Snippets("x.go", src)
	require.NoError(t, err)
	assert.Equal(t, []Snippet{
		{Program: "x.go", Name: "a", Code: "type T int\n\nx := 1\n_ = x\n"},
		{Program: "x.go", Name: "b", Code: "x := 1\n"},
		{Program: "x.go", Name: "c", Code: "func g() {}\n\nfunc h() {}\n"},
		{Program: "x.go", Name: "d", Code: "func h() {}\n"},
	}, got)

	for _, bad := range []string{
		"// readme:begin a\nx\n",
		"x\n// readme:end a\n",
		"// readme:begin a\n// readme:begin a\nx\n// readme:end a\n",
		"// readme:begin a\n\n// readme:end a\n",
	} {
		_, err := Snippets("x.go", bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestBlocks(t *testing.T) {
	md := "text\n```go\na\n\nb\n```\n\n```\nout\n```\n"
	assert.Equal(t, []Block{{Line: 2, Lang: "go", Code: "a\n\nb\n"}, {Line: 8, Lang: "", Code: "out\n"}}, Blocks(md))
}
