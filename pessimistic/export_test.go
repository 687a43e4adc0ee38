package pessimistic

// MaxQueueForTest bounds a FIFO queue below MaxQueue, so that tests can
// fill it.
func MaxQueueForTest(n int) Option {
	return func(o *Options) { o.maxQueue = n }
}
