package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

// TestQuickStart runs the README's quick start against DynamoDB Local.
func TestQuickStart(t *testing.T) {
	var out bytes.Buffer
	name := ddbtest.TableName(t)
	require.NoError(t, Run(context.Background(), ddbtest.Server(t).Client(), name+"-accounts", name+"-orders", &out))
	t.Logf("\n%s", out.String())
	assert.Equal(t, `alice has 70 at version 2
alice has 30 at version 4, bob 10 at version 1
order o-1: 25
order o-2: 40
stale write refused: expected version 2, table has 4
`, out.String())
}

// TestReadmeIsTheProgram checks that the README's quick start is the code
// between the quickstart markers of main.go, word for word.
func TestReadmeIsTheProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	want := Snippet(string(src))
	require.NotEmpty(t, want)
	got, ok := readmeQuickStart(string(readme))
	require.True(t, ok, "README.md has a ```go block under ## Quick start")
	assert.Equal(t, want, got, "README.md's quick start must be examples/quickstart/main.go's snippet (copy it over)")
}

// Snippet joins the regions of src between "// quickstart:begin" and
// "// quickstart:end" lines, each with its common indentation removed.
func Snippet(src string) string {
	var parts []string
	var cur []string
	in := false
	for _, line := range strings.Split(src, "\n") {
		switch strings.TrimSpace(line) {
		case "// quickstart:begin":
			in, cur = true, nil
			continue
		case "// quickstart:end":
			in = false
			parts = append(parts, strings.TrimRight(dedent(cur), "\n"))
			continue
		}
		if in {
			cur = append(cur, line)
		}
	}
	return strings.Join(parts, "\n\n") + "\n"
}

func dedent(lines []string) string {
	indent := ""
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			indent = l[:len(l)-len(strings.TrimLeft(l, "\t"))]
			break
		}
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimPrefix(l, indent))
		b.WriteByte('\n')
	}
	return b.String()
}

// readmeQuickStart returns the first ```go block after "## Quick start".
func readmeQuickStart(readme string) (string, bool) {
	_, after, ok := strings.Cut(readme, "## Quick start")
	if !ok {
		return "", false
	}
	_, after, ok = strings.Cut(after, "```go\n")
	if !ok {
		return "", false
	}
	block, _, ok := strings.Cut(after, "```")
	return block, ok
}
