package keytmpl

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// values are every string of 1 to 3 bytes over a small alphabet that holds
// the templates' separators, so that collisions are easy to reach.
var values = func() []string {
	const alphabet = "#Ax"
	var out []string
	var grow func(prefix string)
	grow = func(prefix string) {
		if len(prefix) == 3 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			v := prefix + alphabet[i:i+1]
			out = append(out, v)
			grow(v)
		}
	}
	grow("")
	return out
}()

// randomTemplate makes a template of one or two placeholders (fields F0,
// F1, sometimes one field twice) between literals over "#Ax".
func randomTemplate(r *rand.Rand) *Template {
	lit := func(min int) string {
		n := min + r.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteByte("#Ax"[r.IntN(3)])
		}
		return b.String()
	}
	var b strings.Builder
	b.WriteString(lit(0))
	fields := 1 + r.IntN(2)
	for i := range fields {
		if i > 0 {
			b.WriteString(lit(1))
		}
		b.WriteString("{F" + string(rune('0'+r.IntN(fields))) + "}")
	}
	b.WriteString(lit(0))
	return MustParse(b.String())
}

// renderAll renders tm for every assignment of values to its fields that
// Render accepts, calling seen with the key and the assignment; it returns
// how many it rendered.
func renderAll(t *testing.T, tm *Template, seen func(key string, vals [2]string)) int {
	fields := tm.Fields()
	n := 0
	var assign func(k int, vals [2]string)
	assign = func(k int, vals [2]string) {
		if k == len(fields) {
			key, err := tm.Render(func(p Part) (string, error) { return vals[p.Field[1]-'0'], nil })
			if err == nil {
				n++
				seen(key, vals)
			}
			return
		}
		for _, v := range values {
			vals[fields[k][1]-'0'] = v
			assign(k+1, vals)
		}
	}
	assign(0, [2]string{})
	return n
}

// TestPropertyNoTwoValuesOneKey: over random templates and every value of
// up to three bytes over an alphabet of separators, no two assignments of
// different values render one key (Render refuses a value that holds its
// stop byte); and two templates that Overlap says cannot share a key
// never render one, while those it says can are checked to (for these
// small values, when a witness exists among them).
func TestPropertyNoTwoValuesOneKey(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases, pairs := 0, 0
	for range propertyPairs() {
		tm := randomTemplate(r)
		keys := map[string][2]string{}
		cases += renderAll(t, tm, func(key string, vals [2]string) {
			if prev, dup := keys[key]; dup && prev != vals {
				t.Fatalf("%s: %q and %q both render %q", tm, prev, vals, key)
			}
			keys[key] = vals
		})
		other := randomTemplate(r)
		shared := false
		cases += renderAll(t, other, func(key string, _ [2]string) {
			if _, ok := keys[key]; ok {
				shared = true
			}
		})
		pairs++
		if shared && !Overlap(tm, other) {
			t.Fatalf("%s and %s render one key, but Overlap says they cannot", tm, other)
		}
		if Overlap(tm, other) != Overlap(other, tm) {
			t.Fatalf("Overlap(%s, %s) is not symmetric", tm, other)
		}
	}
	t.Logf("%d renders checked, %d template pairs", cases, pairs)
	if cases < 125*propertyPairs() {
		t.Fatalf("only %d cases", cases)
	}
}

// propertyPairs is how many template pairs TestPropertyNoTwoValuesOneKey
// draws: 200 in make test, 800 with OPTIMIST_LONG set (make test-long; the
// variable of internal/ddbtest, which this leaf package's tests do not
// import). More pairs only draw more templates of the same shapes.
func propertyPairs() int {
	if os.Getenv("OPTIMIST_LONG") != "" {
		return 800
	}
	return 200
}

func TestOverlap(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"ORDER#{Order}#ITEM#{SKU}", "ORDER#{Order}#ITEM#{SKU}", true},
		{"CUSTOMER#{ID}", "ORDER#{ID}", false},
		{"{ID}", "ORDER#{ID}", true},
		{"PROFILE", "ORDER#{ID}", false},
		{"PROFILE", "PROFILE", true},
		{"ORDER#{ID}", "ORDER#{Date}#{ID}", true}, // the first's last value may hold '#'
		{"A#{X}#B", "A#{Y}#C", false},
		{"A#{X}#B", "A#{Y}", true},
		{"{X}#B", "{Y}#C", false},
	} {
		if got := Overlap(MustParse(c.a), MustParse(c.b)); got != c.want {
			t.Errorf("Overlap(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestRenderRefusesStopByte(t *testing.T) {
	tm := MustParse("ORDER#{Order}#ITEM#{SKU}")
	vals := map[string]string{"Order": "o1#ITEM#x", "SKU": "y"}
	_, err := tm.Render(func(p Part) (string, error) { return vals[p.Field], nil })
	if err == nil || !strings.Contains(err.Error(), "field Order") {
		t.Fatalf("got %v", err)
	}
	vals = map[string]string{"Order": "o1", "SKU": "x#ITEM#y"} // the last value may hold it
	if _, err := tm.Render(func(p Part) (string, error) { return vals[p.Field], nil }); err != nil {
		t.Fatal(err)
	}
}
