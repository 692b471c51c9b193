package testenv

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// Environment variables read by ChromiumDevTools.
const (
	// ChromiumImageEnv overrides the image ChromiumDevTools starts.
	ChromiumImageEnv = "FOLIO_TEST_CHROMIUM_IMAGE"
	// DefaultChromiumImage is the image started by default: built from Debian's chromium package
	// by .ci/build-test-images.sh (no registry has it).
	DefaultChromiumImage = "folio-test/chromium"
)

var chromiumEnv struct {
	once      sync.Once
	url       string
	err       error
	container *testcontainers.DockerContainer
}

// ChromiumDevTools returns the DevTools HTTP endpoint (http://127.0.0.1:PORT) of a headless
// Chromium running in a container of FOLIO_TEST_CHROMIUM_IMAGE (default folio-test/chromium),
// started through testcontainers once per test binary and shared by its tests (each test opens
// its own browser context in it). The container uses the host's network, so the browser reaches
// a test server listening on 127.0.0.1, and its DevTools port is a free port of the host.
//
// Without a reachable Docker or the image, the test fails with what to do (it is never skipped).
func ChromiumDevTools(t testing.TB) string {
	t.Helper()
	chromiumEnv.once.Do(startChromium)
	if chromiumEnv.err != nil {
		t.Fatalf("testenv: no Chromium container for this test: %v\n"+
			"Build the image (as root: bash .ci/docker-up.sh && bash .ci/build-test-images.sh chromium), "+
			"set %s to an image with the same entrypoint, or install Chromium locally "+
			"(apt-get install chromium) or point FOLIO_TEST_CHROMIUM at one.",
			chromiumEnv.err, ChromiumImageEnv)
	}
	return chromiumEnv.url
}

// StopChromium terminates the container ChromiumDevTools started, if any. Main calls it.
func StopChromium() error {
	if chromiumEnv.container == nil {
		return nil
	}
	err := testcontainers.TerminateContainer(chromiumEnv.container)
	chromiumEnv.container = nil
	return err
}

// ChromiumImage is the image ChromiumDevTools starts: FOLIO_TEST_CHROMIUM_IMAGE, else DefaultChromiumImage.
func ChromiumImage() string {
	if img := os.Getenv(ChromiumImageEnv); img != "" {
		return img
	}
	return DefaultChromiumImage
}

// freeLoopbackPort is a TCP port nothing listens on at the moment of the call.
func freeLoopbackPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func startChromium() {
	image := ChromiumImage()
	// testcontainers panics when it cannot find a Docker host at all: the same "no Docker"
	// condition as an error, which must reach the test as a clear failure.
	defer func() {
		if r := recover(); r != nil {
			chromiumEnv.err = fmt.Errorf("start %s: Docker not reachable: %v", image, r)
		}
	}()
	port, err := freeLoopbackPort()
	if err != nil {
		chromiumEnv.err = err
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctr, err := testcontainers.Run(ctx, image,
		testcontainers.WithEnv(map[string]string{"DEVTOOLS_PORT": strconv.Itoa(port)}),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.NetworkMode = "host"
			hc.ShmSize = 256 << 20
		}),
		testcontainers.WithWaitStrategyAndDeadline(time.Minute, wait.ForLog("DevTools listening on")),
	)
	if err != nil {
		_ = testcontainers.TerminateContainer(ctr)
		chromiumEnv.err = fmt.Errorf("start %s: %w", image, err)
		return
	}
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	if err := devToolsAnswers(ctx, url); err != nil {
		_ = testcontainers.TerminateContainer(ctr)
		chromiumEnv.err = fmt.Errorf("%s started, but its DevTools endpoint %s does not answer from the host "+
			"(the container must run in the host's network): %w", image, url, err)
		return
	}
	chromiumEnv.container, chromiumEnv.url = ctr, url
}

// devToolsAnswers waits until url/json/version answers 200.
func devToolsAnswers(ctx context.Context, url string) error {
	var last error
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/json/version", nil)
		if err != nil {
			return err
		}
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("GET /json/version: %s", res.Status)
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return last
}
