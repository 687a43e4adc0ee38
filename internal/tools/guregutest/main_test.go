package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCollect counts top-level tests from go test -json, subtests aside,
// and reports a failure with its output.
func TestCollect(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Test":"TestA"}`,
		`{"Action":"output","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Test":"TestA"}`,
		`{"Action":"run","Test":"TestB/sub"}`,
		`{"Action":"output","Test":"TestB/sub","Output":"db_test.go:1: boom\n"}`,
		`{"Action":"fail","Test":"TestB/sub"}`,
		`{"Action":"fail","Test":"TestB"}`,
		`{"Action":"skip","Test":"TestC"}`,
		`{"Action":"output","Output":"FAIL\n"}`,
		`{"Action":"fail"}`,
	}, "\n")
	res := collect(strings.NewReader(in))
	assert.Equal(t, map[string]string{"TestA": "pass", "TestB": "fail", "TestC": "skip"}, res.outcome)
	var out strings.Builder
	res.report(&out, false)
	assert.Equal(t, "--- FAIL TestB\ndb_test.go:1: boom\nFAIL\nguregutest: 3 top-level tests: 1 passed, 1 failed, 1 skipped\n", out.String())
}
