// Command guregutest runs the test suite of guregu/dynamo v2, the most used
// Go library for DynamoDB, against the embedded engine, and counts its
// top-level tests:
//
//	go run ./internal/tools/guregutest [-version v2.1.1] [-run regexp] [-v]
//
// The library's tests are integration tests: its TestMain creates its tables
// on the endpoint in DYNAMO_TEST_ENDPOINT (see its db_test.go), and every
// request the library makes goes to the server under test, the legacy
// parameters it sends included (KeyConditions on every Query). The command
// downloads the module with the go command (into the module cache), copies
// it to a temporary directory (the cache is read-only; GOFLAGS=-mod=mod lets
// go test settle its dependencies there, outside this module, whose go.mod
// never names guregu), starts a server with dynamolocal.Start, runs go test
// -json there and prints how many top-level tests passed, failed and were
// skipped, with the output of each failure.
//
// The server is the embedded engine, served on a loopback port as
// cmd/dynamolocal serves it; OPTIMIST_ENGINE=dynamodb-local runs AWS
// DynamoDB Local instead (Java 17+), and DYNAMODB_ENDPOINT points at a
// server already running, so that both engines can be counted alike. It
// exits with status 1 when a test failed.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// module is guregu/dynamo v2's module path.
const module = "github.com/guregu/dynamo/v2"

func main() {
	version := flag.String("version", "latest", "`version` of "+module+" whose tests run")
	run := flag.String("run", "", "only the tests matching `regexp` (go test -run)")
	verbose := flag.Bool("v", false, "print every test's outcome, not only the failures")
	flag.Parse()
	if err := runSuite(*version, *run, *verbose, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "guregutest:", err)
		os.Exit(1)
	}
}

// errFailed reports that some test of the suite failed.
var errFailed = errors.New("tests failed")

// runSuite downloads the module, starts the server and runs the tests.
func runSuite(version, run string, verbose bool, out io.Writer) error {
	dir, resolved, err := download(version)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "guregutest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := copyTree(dir, tmp); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	srv, err := dynamolocal.Start(ctx)
	cancel()
	if err != nil {
		return err
	}
	defer srv.Close()
	server := "the embedded engine"
	if !srv.Embedded() {
		server = "the server at " + srv.Endpoint()
	}
	fmt.Fprintf(out, "guregutest: %s %s against %s\n", module, resolved, server)
	args := []string{"test", "-count=1", "-json", "-timeout=20m"}
	if run != "" {
		args = append(args, "-run", run)
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(),
		"GOFLAGS=-mod=mod", "GOWORK=off",
		"DYNAMO_TEST_ENDPOINT="+srv.Endpoint(), "DYNAMO_TEST_REGION="+dynamolocal.Region,
		"AWS_ACCESS_KEY_ID="+dynamolocal.AccessKeyID, "AWS_SECRET_ACCESS_KEY="+dynamolocal.SecretAccessKey,
		"AWS_REGION="+dynamolocal.Region)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	res := collect(stdout)
	waitErr := cmd.Wait()
	res.report(out, verbose)
	switch {
	case len(res.outcome) == 0 && waitErr != nil:
		return fmt.Errorf("go test: %w\n%s", waitErr, stderr.String())
	case res.count("fail") > 0:
		return errFailed
	}
	return nil
}

// download fetches the module into the module cache and returns its
// directory and version.
func download(version string) (dir, resolved string, err error) {
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	b, err := cmd.Output()
	var m struct{ Dir, Version, Error string }
	if jerr := json.Unmarshal(b, &m); jerr != nil || m.Error != "" || m.Dir == "" {
		return "", "", fmt.Errorf("go mod download %s@%s: %v %s", module, version, err, m.Error)
	}
	return m.Dir, m.Version, nil
}

// copyTree copies the regular files under src to dst, writable.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// results are the top-level tests' outcomes and their output.
type results struct {
	outcome map[string]string // pass, fail or skip
	output  map[string]*strings.Builder
	other   strings.Builder // output outside any test (TestMain, build errors)
}

// event is a line of go test -json.
type event struct {
	Action, Test, Output string
}

func collect(r io.Reader) *results {
	res := &results{outcome: map[string]string{}, output: map[string]*strings.Builder{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			res.other.WriteString(sc.Text() + "\n")
			continue
		}
		top, _, _ := strings.Cut(ev.Test, "/")
		switch {
		case ev.Test == "":
			res.other.WriteString(ev.Output)
		case ev.Action == "output":
			if res.output[top] == nil {
				res.output[top] = &strings.Builder{}
			}
			res.output[top].WriteString(ev.Output)
		case top == ev.Test && (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip"):
			res.outcome[top] = ev.Action
		}
	}
	return res
}

func (res *results) count(action string) int {
	n := 0
	for _, a := range res.outcome {
		if a == action {
			n++
		}
	}
	return n
}

func (res *results) report(w io.Writer, verbose bool) {
	names := make([]string, 0, len(res.outcome))
	for n := range res.outcome {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := res.outcome[n]
		if a == "fail" {
			fmt.Fprintf(w, "--- FAIL %s\n", n)
			if b := res.output[n]; b != nil {
				fmt.Fprint(w, b.String())
			}
		} else if verbose {
			fmt.Fprintf(w, "--- %s %s\n", strings.ToUpper(a), n)
		}
	}
	if len(names) == 0 || res.count("fail") > 0 {
		fmt.Fprint(w, res.other.String())
	}
	fmt.Fprintf(w, "guregutest: %d top-level tests: %d passed, %d failed, %d skipped\n",
		len(names), res.count("pass"), res.count("fail"), res.count("skip"))
}
