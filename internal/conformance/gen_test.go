//go:build conformance

package conformance

import (
	"context"
	"testing"
)

func runGenerated(ctx context.Context, t *testing.T, ref, sub side, seed uint64, count int, tl *tally) {
}
