package mapper_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// compileSnippet is the file each case is type-checked in: the case is the
// body of f, which has a versioned table and what its calls need.
const compileSnippet = `package p

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
)

type Item struct {
	ID string ` + "`dynamo:\"id,hash\"`" + `
	V  int64  ` + "`dynamo:\"v,version\"`" + `
}

func f(ctx context.Context, t *mapper.Table[Item], it *Item, u *update.Builder, fn func(*Item) error, prev *Item, c *mapper.Capacity) {
	cond := expression.Name("n").AttributeExists()
	_, _, _, _ = cond, time.Second, fn, prev
%s
}
`

// optionsChecker type-checks snippets against the mapper as compiled, from
// the export data `go list -export` reports (the build cache's), with no
// dependency beyond the standard library.
type optionsChecker struct {
	fset *token.FileSet
	imp  types.Importer
}

func newOptionsChecker(t *testing.T) *optionsChecker {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}",
		"github.com/optimist-dynamo/optimist/mapper", "github.com/optimist-dynamo/optimist/update",
		"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression", "context", "time")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list -export: %s", stderr.String())
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if path, file, ok := strings.Cut(sc.Text(), "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	require.Contains(t, exports, "github.com/optimist-dynamo/optimist/mapper")
	fset := token.NewFileSet()
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(file)
	}
	return &optionsChecker{fset: fset, imp: importer.ForCompiler(fset, "gc", lookup)}
}

// check type-checks body as the body of the snippet's f.
func (c *optionsChecker) check(body string) error {
	f, err := parser.ParseFile(c.fset, "snippet.go", fmt.Sprintf(compileSnippet, body), 0)
	if err != nil {
		return err
	}
	conf := types.Config{Importer: c.imp}
	_, err = conf.Check("p", c.fset, []*ast.File{f}, nil)
	return err
}

// Each call takes only the options that apply to it: the ones it cannot
// honour, which were refused at run time with ErrInvalidOption, do not
// compile; every combination that applies compiles, and so does one slice
// of WriteOption passed to Put, Update and Delete.
func TestOptionsACallCannotHonourDoNotCompile(t *testing.T) {
	c := newOptionsChecker(t)
	compiles := []string{
		`_ = t.Put(ctx, it, mapper.If(cond), mapper.Fence("f", 1), mapper.Unversioned(), mapper.ExactlyOnce(), mapper.ExactlyOnceToken("t"), mapper.Old(&prev), mapper.WriteCapacity(c))`,
		`_ = t.Delete(ctx, *it, mapper.If(cond), mapper.Fence("f", 1), mapper.Unversioned(), mapper.ExactlyOnce(), mapper.ExactlyOnceToken("t"), mapper.Old(&prev), mapper.WriteCapacity(c))`,
		`_, _ = t.Update(ctx, *it, u, mapper.If(cond), mapper.Fence("f", 1), mapper.Unversioned(), mapper.ExactlyOnce(), mapper.ExactlyOnceToken("t"), mapper.Old(&prev), mapper.WriteCapacity(c), mapper.Outside("x"))`,
		`_ = t.Save(ctx, it, mapper.If(cond), mapper.Fence("f", 1), mapper.Unversioned(), mapper.ExactlyOnce(), mapper.ExactlyOnceToken("t"), mapper.Old(&prev), mapper.WriteCapacity(c), mapper.Also(u))`,
		`_, _ = t.Modify(ctx, *it, fn, mapper.If(cond), mapper.Fence("f", 1), mapper.ExactlyOnce(), mapper.MaxAttempts(3), mapper.Backoff(0, time.Second))`,
		`_ = t.PutOp(it, mapper.If(cond), mapper.Fence("f", 1), mapper.Unversioned(), mapper.ExactlyOnce())`,
		`_ = t.DeleteOp(*it, mapper.If(cond), mapper.Fence("f", 1), mapper.Unversioned(), mapper.ExactlyOnce())`,
		`_ = t.CheckOp(*it, mapper.If(cond), mapper.Fence("f", 1), mapper.Unversioned(), mapper.ExactlyOnce())`,
		`_ = t.UpdateOp(*it, u, mapper.If(cond), mapper.Fence("f", 1), mapper.Unversioned(), mapper.ExactlyOnce(), mapper.Outside("x"))`,
		`_ = t.PutAll(ctx, []*Item{it}, mapper.Unversioned())
		_ = t.DeleteAll(ctx, []Item{*it}, mapper.Unversioned())`,
		`opts := []mapper.WriteOption{mapper.Fence("f", 1), mapper.ExactlyOnce(), mapper.Unversioned()}
		_ = t.Put(ctx, it, opts...)
		_, _ = t.Update(ctx, *it, u, opts...)
		_ = t.Delete(ctx, *it, opts...)`,
		`retry := []mapper.RetryOption{mapper.Backoff(0, 0), mapper.If(cond)}
		_, _ = t.Modify(ctx, *it, fn, retry...)`,
	}
	for _, body := range compiles {
		require.NoError(t, c.check(body), "compiles:\n%s", body)
	}
	doNotCompile := map[string]string{
		"Put MaxAttempts":          `_ = t.Put(ctx, it, mapper.MaxAttempts(2))`,
		"Delete Backoff":           `_ = t.Delete(ctx, *it, mapper.Backoff(0, 0))`,
		"Put Also":                 `_ = t.Put(ctx, it, mapper.Also(u))`,
		"Update Also":              `_, _ = t.Update(ctx, *it, u, mapper.Also(u))`,
		"Modify Also":              `_, _ = t.Modify(ctx, *it, fn, mapper.Also(u))`,
		"Modify Unversioned":       `_, _ = t.Modify(ctx, *it, fn, mapper.Unversioned())`,
		"Modify ExactlyOnceToken":  `_, _ = t.Modify(ctx, *it, fn, mapper.ExactlyOnceToken("t"))`,
		"Modify Old":               `_, _ = t.Modify(ctx, *it, fn, mapper.Old(&prev))`,
		"Modify WriteCapacity":     `_, _ = t.Modify(ctx, *it, fn, mapper.WriteCapacity(c))`,
		"Modify Outside":           `_, _ = t.Modify(ctx, *it, fn, mapper.Outside("x"))`,
		"Save Outside":             `_ = t.Save(ctx, it, mapper.Outside("x"))`,
		"Save MaxAttempts":         `_ = t.Save(ctx, it, mapper.MaxAttempts(2))`,
		"PutOp ExactlyOnceToken":   `_ = t.PutOp(it, mapper.ExactlyOnceToken("t"))`,
		"PutOp Old":                `_ = t.PutOp(it, mapper.Old(&prev))`,
		"PutOp Outside":            `_ = t.PutOp(it, mapper.Outside("x"))`,
		"CheckOp WriteCapacity":    `_ = t.CheckOp(*it, mapper.WriteCapacity(c))`,
		"UpdateOp MaxAttempts":     `_ = t.UpdateOp(*it, u, mapper.MaxAttempts(3))`,
		"DeleteOp Also":            `_ = t.DeleteOp(*it, mapper.Also(u))`,
		"PutAll ExactlyOnce":       `_ = t.PutAll(ctx, []*Item{it}, mapper.ExactlyOnce())`,
		"PutAll ExactlyOnceToken":  `_ = t.PutAll(ctx, []*Item{it}, mapper.ExactlyOnceToken("t"))`,
		"PutAll If":                `_ = t.PutAll(ctx, []*Item{it}, mapper.If(cond))`,
		"DeleteAll Fence":          `_ = t.DeleteAll(ctx, []Item{*it}, mapper.Fence("f", 1))`,
		"PutAll Old":               `_ = t.PutAll(ctx, []*Item{it}, mapper.Unversioned(), mapper.Old(&prev))`,
		"DeleteAll WriteCapacity":  `_ = t.DeleteAll(ctx, []Item{*it}, mapper.WriteCapacity(c))`,
		"PutAll MaxAttempts":       `_ = t.PutAll(ctx, []*Item{it}, mapper.MaxAttempts(2))`,
		"a WriteOption for Modify": `var o mapper.WriteOption = mapper.If(cond); _, _ = t.Modify(ctx, *it, fn, o)`,
		"a WriteOption slice for Save": `opts := []mapper.WriteOption{mapper.If(cond)}
		_ = t.Save(ctx, it, opts...)`,
		"a custom option": `_ = t.Put(ctx, it, func(o *mapper.WriteOptions) { o.Unversioned = true })`,
	}
	for name, body := range doNotCompile {
		err := c.check(body)
		require.Error(t, err, "%s compiles:\n%s", name, body)
		require.Regexp(t, `cannot use|does not implement`, err.Error(), name)
	}
}
