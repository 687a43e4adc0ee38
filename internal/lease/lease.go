// Package lease has the timing rule that the lease holders of package
// pessimistic (locks) and package unit (units of work) share.
package lease

import (
	"fmt"
	"time"
)

// Heartbeat returns the heartbeat interval for a lease: heartbeat, or a
// quarter of the lease if heartbeat is 0. It must be under half the lease,
// so that one late or lost heartbeat does not let the lease run out.
func Heartbeat(lease, heartbeat time.Duration) (time.Duration, error) {
	if heartbeat == 0 {
		heartbeat = lease / 4
	}
	if heartbeat >= lease/2 {
		return heartbeat, fmt.Errorf("heartbeat %v must be less than half the lease %v", heartbeat, lease)
	}
	return heartbeat, nil
}
