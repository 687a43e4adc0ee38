package bench

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// envServerPID names the process of the DynamoDB Local the benchmarks
// reach through DYNAMODB_LOCAL_ENDPOINT, so that its CPU time counts in
// the dynamodb-local variants' cpu-ns/op: on a machine shared with other
// work, CPU time per request compares the servers where requests per
// second measure the share of the machine each got.
const envServerPID = "OPTIMIST_BENCH_SERVER_PID"

// serverCPU is the CPU time, user and system, the process envServerPID
// names has used so far (Linux's /proc; 0 where it cannot be read).
func serverCPU() time.Duration {
	pid := os.Getenv(envServerPID)
	if pid == "" {
		return 0
	}
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command, which is in parentheses: utime and stime
	// are the 14th and 15th of the line, in clock ticks of 1/100 s.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}
