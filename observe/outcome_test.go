package observe_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/observe"
)

// TestOneOutcomeVocabulary: the outcomes are the Outcome constants, and
// the docs and code of observe and of the otel module name no other:
// every snake-case word the docs give as an outcome is a constant, and
// the words of an older vocabulary appear nowhere.
func TestOneOutcomeVocabulary(t *testing.T) {
	outcomes := map[string]bool{
		observe.OutcomeLanded: true, observe.OutcomeNotSeen: true,
		observe.OutcomeForward: true, observe.OutcomeBack: true,
	}
	assert.Len(t, outcomes, 4, "four distinct values")
	assert.Equal(t, "not_seen", observe.OutcomeNotSeen, "the value the mapper emits")

	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	otelFiles, err := filepath.Glob("../otel/*.go")
	require.NoError(t, err)
	require.NotEmpty(t, otelFiles, "the otel module sits beside observe")
	// "optimist.outcome: a or b", "optimist.outcome (a, b)", `Outcome "a"`.
	listed := regexp.MustCompile(`optimist\.outcome[: (]+([a-z_]+)(?:,| or) ([a-z_]+)`)
	quoted := regexp.MustCompile(`Outcome "([a-z_]+)"`)
	for _, f := range append(files, otelFiles...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		text := string(b)
		assert.NotContains(t, text, "not_landed", f)
		for _, m := range listed.FindAllStringSubmatch(text, -1) {
			for _, w := range m[1:] {
				assert.True(t, outcomes[w], "%s names outcome %q, not an Outcome constant", f, w)
			}
		}
		for _, m := range quoted.FindAllStringSubmatch(text, -1) {
			assert.True(t, outcomes[m[1]], "%s names outcome %q, not an Outcome constant", f, m[1])
		}
	}
}

// TestLockTakenOverKind: the takeover has a kind of its own, a point
// event logged at Warn.
func TestLockTakenOverKind(t *testing.T) {
	assert.Equal(t, "lock_taken_over", observe.LockTakenOver.String())
	assert.False(t, observe.LockTakenOver.Span())
}
