package mapper_test

import (
	"errors"
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/mapper"
)

func TestAllStopsAtTheFirstError(t *testing.T) {
	boom := errors.New("boom")
	a, b, c := 1, 2, 3
	yielded := 0
	seq := iter.Seq2[*int, error](func(yield func(*int, error) bool) {
		for _, step := range []struct {
			v   *int
			err error
		}{{&a, nil}, {&b, nil}, {nil, boom}, {&c, nil}} {
			yielded++
			if !yield(step.v, step.err) {
				return
			}
		}
	})
	got, err := mapper.All(seq)
	require.ErrorIs(t, err, boom)
	assert.Equal(t, []*int{&a, &b}, got, "the items before the error")
	assert.Equal(t, 3, yielded, "the sequence was stopped at the error")

	got, err = mapper.All(iter.Seq2[*int, error](func(func(*int, error) bool) {}))
	require.NoError(t, err)
	assert.Empty(t, got)
}
