//go:build linux

package dynamolocal

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr makes the JVM die with its parent. Pdeathsig is what lets the
// server shared by New outlive every test yet never the test binary, even when
// the binary is killed (go test -timeout, ^C, SIGKILL): the kernel sends the
// JVM SIGKILL when its parent goes away. Setpgid keeps a terminal's ^C from
// reaching the JVM directly; it dies through Pdeathsig when the binary does.
//
// Caveat (golang/go#27505): the signal is tied to the OS thread that started
// the child, not the process. Go ends a thread only when a goroutine locked to
// it with runtime.LockOSThread returns without unlocking, so this matters only
// to programs that do that.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// listenerOwnedBy reports whether process pid holds the socket listening on
// TCP port port; known is false when /proc cannot tell.
func listenerOwnedBy(pid, port int) (owned, known bool) {
	inodes := map[string]bool{}
	readable := false
	for _, name := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, name))
		if err != nil {
			continue
		}
		readable = true
		lines := strings.Split(string(data), "\n")
		for _, line := range lines[1:] { // the first line is a header
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // 0A is TCP_LISTEN
				continue
			}
			i := strings.LastIndexByte(f[1], ':')
			p, err := strconv.ParseUint(f[1][i+1:], 16, 16)
			if err != nil || int(p) != port {
				continue
			}
			inodes["socket:["+f[9]+"]"] = true
		}
	}
	if !readable {
		return false, false
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return false, false
	}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && inodes[link] {
			return true, true
		}
	}
	return false, true
}
