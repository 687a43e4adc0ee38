package dynamolocal_test

import "runtime"

func runtimeGOMAXPROCS(n int) int { return runtime.GOMAXPROCS(n) }
