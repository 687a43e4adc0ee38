package dynamolocal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// portAttempts is how many ports launch tries before giving up.
const portAttempts = 3

// errPortTaken reports that the chosen port was taken before the JVM bound it.
var errPortTaken = errors.New("port taken")

func lookJava() (string, error) {
	p, err := exec.LookPath("java")
	if err != nil {
		return "", errors.New("dynamolocal: java not found on PATH: install a Java 17+ runtime " +
			"(e.g. apt-get install openjdk-17-jre-headless), or set " + EnvEndpoint + ", or unset " + EnvEngine + " for the embedded engine")
	}
	return p, nil
}

// launch starts DynamoDB Local from the emulator directory emu on a free
// port, trying another port if the first one is taken meanwhile.
func launch(ctx context.Context, java, emu string) (*Server, error) {
	var err error
	for range portAttempts {
		var port int
		if port, err = freePort(); err != nil {
			return nil, err
		}
		var s *Server
		s, err = startProcess(ctx, java, emu, port)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errPortTaken) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("dynamolocal: no free port after %d attempts: %w", portAttempts, err)
}

// freePort asks the kernel for a free port. The listener is on the wildcard
// address, not loopback, because DynamoDB Local binds 0.0.0.0 and has no
// option to bind anything else: a port free on loopback only would not do.
// Between Close here and the JVM's bind another process may take the port;
// startProcess detects that and launch retries.
func freePort() (int, error) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, fmt.Errorf("dynamolocal: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startProcess(ctx context.Context, java, emu string, port int) (*Server, error) {
	// Not exec.CommandContext: ctx bounds the start only, not the server's life.
	cmd := exec.Command(java,
		"-Djava.library.path="+filepath.Join(emu, "DynamoDBLocal_lib"),
		"-jar", filepath.Join(emu, "DynamoDBLocal.jar"),
		"-inMemory", "-disableTelemetry",
		"-port", strconv.Itoa(port))
	cmd.Dir = emu
	out := newTailBuffer(64 << 10)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	// If the JVM leaves a child holding its output pipe, do not hang in Wait.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("dynamolocal: start %s: %w", java, err)
	}
	s := newServer("http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	s.cmd, s.out, s.exited = cmd, out, make(chan struct{})
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ctx, port); err != nil {
		// Nothing useful can be added from stopping a server that failed.
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// waitReady polls the server with ListTables until it answers, the process
// exits, ctx ends or startTimeout passes. port is 0 for an attached server.
func (s *Server) waitReady(ctx context.Context, port int) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	// One attempt per poll: the SDK's retries would only delay the next poll.
	probe := s.NewClient(func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} })
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	var lastErr error
	var refusedSince time.Time // of the current run of refused connections
	for {
		if s.bindFailed() {
			return fmt.Errorf("dynamolocal: %w: %d%s", errPortTaken, port, s.out.report())
		}
		attemptCtx, attemptCancel := context.WithTimeout(ctx, time.Second)
		_, lastErr = probe.ListTables(attemptCtx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
		attemptCancel()
		if lastErr == nil {
			return s.checkOwner(port)
		}
		if s.cmd == nil && errors.Is(lastErr, syscall.ECONNREFUSED) {
			// Attached: nothing listens there. Our own JVM binds its port
			// late, so a started server gets the whole startTimeout.
			if refusedSince.IsZero() {
				refusedSince = time.Now()
			} else if time.Since(refusedSince) >= refusedFor {
				return lastErr
			}
		} else {
			refusedSince = time.Time{}
		}
		select {
		case <-s.exited: // nil channel for an attached server: never ready
			if s.bindFailed() {
				return fmt.Errorf("dynamolocal: %w: %d%s", errPortTaken, port, s.out.report())
			}
			return fmt.Errorf("dynamolocal: DynamoDB Local exited during start-up: %v%s",
				s.waitErr, s.out.report())
		case <-ctx.Done():
			if s.cmd == nil { // attached: Attach names the endpoint
				if errors.Is(lastErr, syscall.ECONNREFUSED) {
					return lastErr
				}
				return fmt.Errorf("no answer (%v; Attach waits up to %s); last error: %v", context.Cause(ctx), startTimeout, lastErr)
			}
			return fmt.Errorf("dynamolocal: no answer from %s (%v; Start waits up to %s); last error: %v%s",
				s.endpoint, context.Cause(ctx), startTimeout, lastErr, s.out.report())
		case <-ticker.C:
		}
	}
}

// checkOwner makes sure the server that answered is ours. DynamoDB Local does
// not exit when it cannot bind its port: it prints "Failed to bind" and hangs
// (seen with 1.25.1). If another process took the port meanwhile, the probe
// would succeed against that process's server, and we would hand out a server
// that dies with someone else's test binary.
func (s *Server) checkOwner(port int) error {
	if s.cmd == nil {
		return nil
	}
	owned, known := listenerOwnedBy(s.cmd.Process.Pid, port)
	if (known && !owned) || s.bindFailed() {
		return fmt.Errorf("dynamolocal: %w: %d is served by another process%s", errPortTaken, port, s.out.report())
	}
	return nil
}

// bindFailed reports whether the JVM said that it could not bind its port.
func (s *Server) bindFailed() bool {
	if s.out == nil {
		return false
	}
	o := s.out.String()
	return strings.Contains(o, "Failed to bind") || strings.Contains(o, "Address already in use")
}

// tailBuffer is an io.Writer that keeps the last max bytes written to it, so
// that a chatty process cannot grow memory without bound. It is safe for
// concurrent use.
type tailBuffer struct {
	mu        sync.Mutex
	buf       []byte
	max       int
	truncated bool
}

func newTailBuffer(maxBytes int) *tailBuffer { return &tailBuffer{max: maxBytes} }

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.truncated = true
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.truncated {
		return "[...]" + string(b.buf)
	}
	return string(b.buf)
}

// report formats the output for the end of an error message.
func (b *tailBuffer) report() string {
	if b == nil {
		return ""
	}
	o := strings.TrimSpace(b.String())
	if o == "" {
		return " (no output)"
	}
	return "\n--- DynamoDB Local output ---\n" + o
}
