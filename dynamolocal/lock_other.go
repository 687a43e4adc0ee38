//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package dynamolocal

import "context"

// lockFile does nothing where flock is not available: parallel installs then
// each download, and the atomic rename in publish keeps the cache intact.
func lockFile(context.Context, string) (unlock func(), err error) {
	return func() {}, nil
}
