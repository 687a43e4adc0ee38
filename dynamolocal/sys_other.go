//go:build !linux

package dynamolocal

import "syscall"

// sysProcAttr returns nil: only Linux can make the kernel kill a child when
// its parent dies (see sys_linux.go). Elsewhere a server that is not closed,
// such as the one shared by New, outlives the test binary.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// listenerOwnedBy cannot tell outside Linux; callers rely on the JVM's
// "Failed to bind" message alone.
func listenerOwnedBy(pid, port int) (owned, known bool) { return false, false }
