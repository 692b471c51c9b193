package testenv

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var folioBin struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// FolioBinary returns the path of ./cmd/folio, built from the module root once per test binary
// (a build takes tens of seconds cold; every test that runs the real binary shares it). Main
// removes it when the tests end.
func FolioBinary(t testing.TB) string {
	t.Helper()
	folioBin.once.Do(buildFolio)
	if folioBin.err != nil {
		t.Fatalf("go build ./cmd/folio: %v\n%s", folioBin.err, folioBin.out)
	}
	return folioBin.path
}

func buildFolio() {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		folioBin.err = err
		return
	}
	folioBin.dir, folioBin.err = os.MkdirTemp("", "folio-bin-")
	if folioBin.err != nil {
		return
	}
	folioBin.path = filepath.Join(folioBin.dir, "folio")
	cmd := exec.Command("go", "build", "-o", folioBin.path, "./cmd/folio")
	cmd.Dir = root
	folioBin.out, folioBin.err = cmd.CombinedOutput()
}

// removeFolioBinary deletes the binary FolioBinary built, if any.
func removeFolioBinary() {
	if folioBin.dir != "" {
		_ = os.RemoveAll(folioBin.dir)
	}
}

// FolioEnv is the environment of a folio child process: this process's environment without its
// FOLIO_ variables (the tests' own settings, which folio would warn about, and anything that
// would change the child's configuration behind the test's back), then env.
func FolioEnv(env []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FOLIO_") {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

// FreeAddr returns a loopback address whose port nobody listens on (for FOLIO_HTTP_ADDR).
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// StartProcess starts cmd; done is closed once it has exited, with Wait's error in *waitErr. A
// process still running when the test ends is killed.
func StartProcess(t testing.TB, cmd *exec.Cmd, done chan struct{}, waitErr *error) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { *waitErr = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			_ = cmd.Process.Kill()
			<-done
		}
	})
}

// WaitReady waits until url/readyz answers 200; it returns what went wrong, or "".
func WaitReady(url string, done <-chan struct{}, why func() string) string {
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get(url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return ""
			}
		}
		select {
		case <-done:
			return "folio serve exited: " + why()
		default:
		}
		if time.Now().After(deadline) {
			return "folio serve not ready within 90s: " + why()
		}
		time.Sleep(50 * time.Millisecond)
	}
}
