package syncx

import (
	"context"
	"sync"

	"github.com/optimist-dynamo/optimist/internal/simhook"
)

// Parallel runs fn(i) for i in [0, n) on up to workers goroutines, all of
// them, and returns when they are done.
func Parallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int)) {
	if n == 0 {
		return
	}
	var (
		mu   sync.Mutex
		next int
		wg   sync.WaitGroup
	)
	for range min(workers, n) {
		wg.Add(1)
		simhook.Go(func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= n {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				fn(ctx, i)
			}
		})
	}
	wg.Wait()
}
