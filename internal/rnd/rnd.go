// Package rnd is the one source of the library's random choices: owner
// names, unit ids, transaction tokens, backoffs, poll and turn jitter.
//
// Every draw reads crypto/rand, so that a test that fixes crypto/rand
// (testing/cryptotest.SetGlobalRandom, which dynamolocal's simulation
// runner calls with its seed) fixes the library's choices too; the
// top-level functions of math/rand/v2 cannot be seeded. One stream serves every
// goroutine: the simulation runner runs the library's goroutines one at a
// time (see internal/simhook), so they draw in an order its seed fixes.
// Draws are not on any hot path (one per backoff, poll, lock or unit), so
// crypto/rand's cost does not matter.
package rnd

import (
	"crypto/rand"
	"encoding/binary"
	mrand "math/rand/v2"
)

// source is a math/rand/v2 source that reads crypto/rand.
type source struct{}

func (source) Uint64() uint64 {
	var b [8]byte
	Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

var r = mrand.New(source{})

// Read fills b with random bytes from crypto/rand.
func Read(b []byte) {
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it crashes the program instead)
}

// Uint64 returns a random uint64.
func Uint64() uint64 { return r.Uint64() }

// Float64 returns a random number in [0, 1).
func Float64() float64 { return r.Float64() }

// N returns a random number in [0, n); it panics if n <= 0.
func N[Int ~int | ~int64 | ~uint64](n Int) Int {
	return Int(r.Uint64N(uint64(n)))
}
