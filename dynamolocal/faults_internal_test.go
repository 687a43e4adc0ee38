package dynamolocal

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFaultTransportSeeded: the same seed and requests give the same
// faults, another seed others, and the mix follows the probabilities.
func TestFaultTransportSeeded(t *testing.T) {
	draws := func(seed uint64) ([]Fault, *FaultTransport) {
		ft := &FaultTransport{Seed: seed, LoseResponse: 0.1, Refuse: 0.1, Throttle: 0.1, ServerError: 0.1, Delay: 0.1}
		out := make([]Fault, 2000)
		for i := range out {
			out[i], _ = ft.draw("PutItem")
		}
		return out, ft
	}
	a, ft := draws(7)
	b, _ := draws(7)
	c, _ := draws(8)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
	for f := FaultNone; f <= FaultDelayed; f++ {
		want := 200
		if f == FaultNone {
			want = 1000
		}
		assert.InDelta(t, want, ft.Count(f), float64(want)/4, "%v", f)
	}
}

// TestFaultTransportNoFaults: with nothing to inject it is a plain
// transport, and Ops limits the faults to the operations listed.
func TestFaultTransportNoFaults(t *testing.T) {
	ft := &FaultTransport{}
	for range 100 {
		f, d := ft.draw("GetItem")
		require.Equal(t, FaultNone, f)
		require.Zero(t, d)
	}
	only := &FaultTransport{Refuse: 1, Ops: []string{"PutItem"}}
	f, _ := only.draw("GetItem")
	assert.Equal(t, FaultNone, f)
	f, _ = only.draw("PutItem")
	assert.Equal(t, FaultRefused, f)
	assert.Equal(t, "lost response", FaultLostResponse.String())
	assert.Equal(t, "Fault(99)", Fault(99).String())
}
