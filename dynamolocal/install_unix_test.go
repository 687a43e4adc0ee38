//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package dynamolocal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeNPM is an npm that copies $FAKE_NPM_TGZ into --pack-destination, or
// fails when $FAKE_NPM_FAIL is set; each run appends a line to $FAKE_NPM_LOG.
const fakeNPM = `#!/bin/sh
PATH=/usr/bin:/bin; export PATH
echo "$*" >> "$FAKE_NPM_LOG"
if [ -n "$FAKE_NPM_FAIL" ]; then echo "npm error 404 Not Found - $2" >&2; exit 1; fi
dest=""
while [ $# -gt 0 ]; do
	if [ "$1" = "--pack-destination" ]; then dest="$2"; shift; fi
	shift
done
cp "$FAKE_NPM_TGZ" "$dest/fake-1.0.0.tgz"
`

// fakeInstall sets PATH to a directory holding only fakeNPM serving tgz and
// returns an installer into a fresh directory expecting jar as the jar, and a
// function that returns how many times npm ran.
func fakeInstall(t *testing.T, tgz []byte, jar string) (installer, func() int) {
	t.Helper()
	bin, tmp := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte(fakeNPM), 0o755))
	tgzPath, logPath := filepath.Join(tmp, "in.tgz"), filepath.Join(tmp, "npm.log")
	require.NoError(t, os.WriteFile(tgzPath, tgz, 0o644))
	t.Setenv("PATH", bin)
	t.Setenv("FAKE_NPM_TGZ", tgzPath)
	t.Setenv("FAKE_NPM_LOG", logPath)
	t.Setenv("FAKE_NPM_FAIL", "")
	sum := sha256.Sum256([]byte(jar))
	in := installer{dir: filepath.Join(t.TempDir(), "cache", "v1"), spec: "fake@1.0.0", jarHash: hex.EncodeToString(sum[:])}
	runs := func() int {
		b, err := os.ReadFile(logPath)
		if os.IsNotExist(err) {
			return 0
		}
		require.NoError(t, err)
		return strings.Count(string(b), "\n")
	}
	return in, runs
}

func fakeTGZ(t *testing.T, jar string) []byte {
	return makeTGZ(t,
		entry{name: "package/package.json", body: "{}"},
		entry{name: "package/emulator/DynamoDBLocal.jar", body: jar},
		entry{name: "package/emulator/DynamoDBLocal_lib/lib.so", body: "so"})
}

func TestInstall(t *testing.T) {
	ctx := context.Background()
	in, runs := fakeInstall(t, fakeTGZ(t, "jar v1"), "jar v1")

	emu, err := in.install(ctx)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(in.dir, "emulator"), emu)
	assert.FileExists(t, filepath.Join(emu, "DynamoDBLocal_lib", "lib.so"))
	assert.NoFileExists(t, filepath.Join(emu, "package.json"))
	require.NoError(t, checkJar(emu, in.jarHash))
	assert.Equal(t, 1, runs())
	assertNoTemp(t, in.dir)

	// Installed: npm is not needed any more.
	_, err = in.install(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, runs(), "cached install reused")

	// A jar that does not match is replaced.
	require.NoError(t, os.WriteFile(filepath.Join(emu, "DynamoDBLocal.jar"), []byte("tampered"), 0o644))
	emu2, err := in.install(ctx)
	require.NoError(t, err)
	assert.Equal(t, emu, emu2)
	require.NoError(t, checkJar(emu, in.jarHash))
	assert.Equal(t, 2, runs())
	assertNoTemp(t, in.dir)
}

func TestInstallArgs(t *testing.T) {
	in, _ := fakeInstall(t, fakeTGZ(t, "j"), "j")
	_, err := in.install(context.Background())
	require.NoError(t, err)
	b, err := os.ReadFile(os.Getenv("FAKE_NPM_LOG"))
	require.NoError(t, err)
	args := strings.Fields(string(b))
	require.GreaterOrEqual(t, len(args), 4)
	assert.Equal(t, []string{"pack", "fake@1.0.0", "--pack-destination"}, args[:3])
	assert.True(t, strings.HasPrefix(args[3], filepath.Join(in.dir, ".install-")),
		"downloads inside the cache directory, so the rename stays on one file system: %s", args[3])
}

func TestInstallHashMismatch(t *testing.T) {
	in, _ := fakeInstall(t, fakeTGZ(t, "not the jar"), "the jar")
	_, err := in.install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), in.jarHash, "names the expected hash")
	sum := sha256.Sum256([]byte("not the jar"))
	assert.Contains(t, err.Error(), hex.EncodeToString(sum[:]), "names the actual hash")
	assert.NoDirExists(t, filepath.Join(in.dir, "emulator"), "nothing installed")
	assertNoTemp(t, in.dir)
}

func TestInstallNPMFails(t *testing.T) {
	in, _ := fakeInstall(t, fakeTGZ(t, "j"), "j")
	t.Setenv("FAKE_NPM_FAIL", "1")
	_, err := in.install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "npm pack fake@1.0.0")
	assert.Contains(t, err.Error(), "npm error 404", "npm's output is in the error")
	assertNoTemp(t, in.dir)
}

func TestInstallBadArchive(t *testing.T) {
	in, _ := fakeInstall(t, makeTGZ(t, entry{name: "package/emulator/../../../evil", body: "x"}), "j")
	_, err := in.install(context.Background())
	require.ErrorContains(t, err, "unsafe path")
	assert.NoDirExists(t, filepath.Join(in.dir, "emulator"))
	assertNoTemp(t, in.dir)
}

// TestInstallConcurrent runs installs at once into one empty directory; the
// lock file makes them download once, and all get a good install.
func TestInstallConcurrent(t *testing.T) {
	in, runs := fakeInstall(t, fakeTGZ(t, "jar"), "jar")
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = in.install(context.Background())
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, 1, runs())
	require.NoError(t, checkJar(filepath.Join(in.dir, "emulator"), in.jarHash))
	assertNoTemp(t, in.dir)
}

// TestPublishRace is the lock-free path: another process renamed its install
// into place first. publish must keep theirs and succeed, or replace a bad one.
func TestPublishRace(t *testing.T) {
	dir := t.TempDir()
	sum := sha256.Sum256([]byte("jar"))
	hash := hex.EncodeToString(sum[:])
	mk := func(name, jar string) string {
		d := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, jarName), []byte(jar), 0o644))
		return d
	}
	dst := filepath.Join(dir, "emulator")
	trash := filepath.Join(dir, "trash")
	require.NoError(t, os.Mkdir(trash, 0o755))

	// Theirs is good: kept.
	mk("emulator", "jar")
	require.NoError(t, os.WriteFile(filepath.Join(dst, "theirs"), nil, 0o644))
	require.NoError(t, publish(mk("mine", "jar"), dst, trash, hash))
	assert.FileExists(t, filepath.Join(dst, "theirs"))

	// Theirs is bad: replaced by mine.
	require.NoError(t, os.WriteFile(filepath.Join(dst, jarName), []byte("bad"), 0o644))
	require.NoError(t, publish(filepath.Join(dir, "mine"), dst, trash, hash))
	assert.NoFileExists(t, filepath.Join(dst, "theirs"))
	require.NoError(t, checkJar(dst, hash))
}
