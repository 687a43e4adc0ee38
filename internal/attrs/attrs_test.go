package attrs

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
)

func TestCanonicalNumber(t *testing.T) {
	same := [][]string{
		{"42.5", "042.50", "4.25e1", "425E-1", "+42.5", "0.425e2"},
		{"0", "-0.0", "0e10", "000", ".0", "0."},
		{"100", "1e2", "1.00E+2", "100.000"},
		{"-7", "-7.0", "-0.7e1"},
		{"1e125", "10e124"},
		{"1e-130", "0.1e-129"},
	}
	for _, group := range same {
		for _, n := range group[1:] {
			assert.Equal(t, CanonicalNumber(group[0]), CanonicalNumber(n), "%s and %s", group[0], n)
		}
	}
	different := []string{"1", "-1", "10", "0.1", "11", "1.1", "1e125", "1e-130", "12345678901234567890123456789012345678"}
	seen := map[string]string{}
	for _, n := range different {
		c := CanonicalNumber(n)
		assert.NotContains(t, seen, c, "%s and %s", n, seen[c])
		seen[c] = n
	}
	for _, s := range []string{"", "-", "abc", "1e", "1.2.3", "1e1e1", "0x10", "1e99999999999999999999", "1.5e-9223372036854775808"} {
		assert.Equal(t, s, CanonicalNumber(s), "not a number: returned as is")
	}
}

func TestSize(t *testing.T) {
	cases := []struct {
		v    types.AttributeValue
		want int
	}{
		{S("abc"), 3},
		{N(12345), 4}, // (digits+1)/2 + 1
		{N(1000000), 2},
		{N(0), 1},
		{&types.AttributeValueMemberB{Value: []byte{1, 2}}, 2},
		{&types.AttributeValueMemberBOOL{Value: true}, 1},
		{&types.AttributeValueMemberNULL{Value: true}, 1},
		{&types.AttributeValueMemberSS{Value: []string{"ab", "cde"}}, 5},
		{&types.AttributeValueMemberNS{Value: []string{"1", "234"}}, 2 + 3},
		{&types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3, 4}}}, 4},
		{&types.AttributeValueMemberL{Value: []types.AttributeValue{S("ab"), N(1)}}, 3 + (1 + 2) + (1 + 2)},
		{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": S("ab")}}, 3 + 1 + (1 + 2)}, // 1 per element, as a list
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Size(c.v), "%#v", c.v)
	}
}

func TestNumberSize(t *testing.T) {
	for n, want := range map[string]int{"0": 1, "-0.0": 1, "7": 2, "12": 2, "123": 3, "1.25": 3, "100": 2, "0.001": 2, "12345678901234567890123456789012345678": 20,
		// Digits pair up around the decimal point, and a minus costs a byte.
		"3.5": 3, "10.5": 3, "-1": 3, "-3.5": 4, "0.5": 2, "123.45": 4} {
		assert.Equal(t, want, NumberSize(n), n)
	}
	assert.Zero(t, testing.AllocsPerRun(10, func() { NumberSize("123.456e7") }))
}

func TestCheckNumber(t *testing.T) {
	for _, ok := range []string{"0", "-0", "1", "1e125", "9.9999999999999999999999999999999999999e125", "1e-130", "-1e-130", "12345678901234567890123456789012345678"} {
		assert.NoError(t, CheckNumber(ok), ok)
	}
	for _, ok := range []string{"1.", ".5", "-0.000e-999", "1E+125", "0.0000001e-122", "100000000000000000000000000000000000000000000"} {
		assert.NoError(t, CheckNumber(ok), ok)
	}
	for _, bad := range []string{"NaN", "+Inf", "-Inf", "", "abc", "1e126", "1e-131", "123456789012345678901234567890123456789",
		"1e++3", "1e", "1.2.3", "--1", ".", "1e99999999999", "0x10", " 1"} {
		assert.Error(t, CheckNumber(bad), bad)
	}
}
