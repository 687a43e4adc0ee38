package keytmpl

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		src    string
		parts  []Part
		fields []string
		prefix string
	}{
		{"PROFILE", []Part{{Literal: "PROFILE"}}, nil, "PROFILE"},
		{"CUSTOMER#{ID}", []Part{{Literal: "CUSTOMER#"}, {Field: "ID"}}, []string{"ID"}, "CUSTOMER#"},
		{"ORDER#{Date}#{ID}", []Part{{Literal: "ORDER#"}, {Field: "Date"}, {Literal: "#"}, {Field: "ID"}}, []string{"Date", "ID"}, "ORDER#"},
		{"{Base.ID}", []Part{{Field: "Base.ID"}}, []string{"Base.ID"}, ""},
		{"N#{Total:%010d}", []Part{{Literal: "N#"}, {Field: "Total", Verb: "%010d"}}, []string{"Total"}, "N#"},
		{"{{x}}#{A}", []Part{{Literal: "{x}#"}, {Field: "A"}}, []string{"A"}, "{x}#"},
		{"{A}#{A}", []Part{{Field: "A"}, {Literal: "#"}, {Field: "A"}}, []string{"A"}, ""},
	} {
		tm, err := Parse(c.src)
		require.NoError(t, err, c.src)
		assert.Equal(t, c.parts, tm.Parts(), c.src)
		assert.Equal(t, c.fields, tm.Fields(), c.src)
		assert.Equal(t, c.prefix, tm.Prefix(), c.src)
		assert.Equal(t, c.src, tm.String())
		assert.Equal(t, len(c.fields) == 0, tm.Constant(), c.src)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, src := range []string{
		"", "{", "A{ID", "}", "A}B", "{}", "{1D}", "{A-B}", "{A.}", "{A}{B}", "{A:}", "{A:d}", "{A:%d%d}", "{A:%zz}",
	} {
		_, err := Parse(src)
		assert.True(t, errors.Is(err, ErrSyntax), "%q: %v", src, err)
	}
	assert.Panics(t, func() { MustParse("{") })
}

func TestRender(t *testing.T) {
	tm := MustParse("ORDER#{Date}#{N:%04d}")
	vals := map[string]any{"Date": "2026-11-27", "N": 7}
	got, err := tm.Render(func(p Part) (string, error) {
		if p.Verb != "" {
			return fmt.Sprintf(p.Verb, vals[p.Field]), nil
		}
		return fmt.Sprint(vals[p.Field]), nil
	})
	require.NoError(t, err)
	assert.Equal(t, "ORDER#2026-11-27#0007", got)

	_, err = tm.Render(func(p Part) (string, error) { return "", nil })
	assert.ErrorContains(t, err, "field Date is empty")
	boom := errors.New("boom")
	_, err = tm.Render(func(p Part) (string, error) { return "", boom })
	assert.ErrorIs(t, err, boom)
}
