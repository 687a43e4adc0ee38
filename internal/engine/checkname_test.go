package engine

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckName holds checkName to the rule it implements, written as the
// regular expression it replaced: 3 to 255 of a-z, A-Z, 0-9, '_', '-' and
// '.', counted in characters.
func TestCheckName(t *testing.T) {
	rule := regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)
	cases := []struct {
		name string
		ok   bool
	}{
		{"", false}, {"a", false}, {"ab", false}, {"abc", true}, {"a-b", true}, {"a.b", true}, {"a_b", true},
		{"AZz", true}, {"09a", true}, {"...", true}, {"---", true}, {"___", true},
		{strings.Repeat("x", 255), true}, {strings.Repeat("x", 256), false}, {strings.Repeat("x", 254) + "é", false},
		{"ab ", false}, {" ab", false}, {"a b", false}, {"ab\n", false}, {"abc\n", false}, {"\nabc", false},
		{"ab/", false}, {"ab:", false}, {"a+b", false}, {"a@b", false}, {"a`b", false}, {"a[b", false}, {"a{b", false},
		{"a\x00b", false}, {"ab\x7f", false}, {"aé", false}, {"été", false}, {"ab\xff", false}, {"\xff\xfe\xfd", false},
		{"日本語", false}, {"a/b/c", false}, {"tbl", true},
	}
	for _, c := range cases {
		require.Equal(t, c.ok, rule.MatchString(c.name), "the rule itself, %q", c.name)
		err := checkName(c.name)
		if c.ok {
			require.NoError(t, err, "%q", c.name)
			continue
		}
		var api *apiError
		require.True(t, errors.As(err, &api), "%q: %v", c.name, err)
		require.Equal(t, validation(msgInvalidTableOrIndexName), api, "%q", c.name)
	}
	// Every byte, in the middle of a name of a valid length.
	for c := range 256 {
		name := "a" + string([]byte{byte(c)}) + "b"
		require.Equal(t, rule.MatchString(name), checkName(name) == nil, "byte %#x", c)
	}
}
