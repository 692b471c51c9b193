// Package buildinfo says which folio this is: the module version, VCS revision and commit time
// that the Go toolchain stamps into the binary (folio version, the start line, the image).
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Info is what the build stamped ("unknown" where it stamped nothing: a build outside a checkout,
// or with -buildvcs=false).
type Info struct {
	Version  string // the main module's version: "(devel)" for a build from a checkout
	Revision string // the commit
	Time     string // the commit's time, RFC 3339
	Modified bool   // the checkout had uncommitted changes
	Go       string // the toolchain
}

// revision and commitTime are set at link time by builds that cannot let Go stamp the VCS
// information (the Dockerfile's build has no .git; some environments set GOFLAGS=-buildvcs=false):
//
//	go build -ldflags "-X folio/platform/buildinfo.revision=$(git rev-parse HEAD) -X folio/platform/buildinfo.commitTime=$(git log -1 --format=%cI)"
//
// What Go stamped, when it did, wins.
var revision, commitTime string

// Read returns the binary's build information.
func Read() Info {
	out := Info{Version: "unknown", Revision: "unknown", Time: "unknown", Go: "unknown"}
	if revision != "" {
		out.Revision = revision
	}
	if commitTime != "" {
		out.Time = commitTime
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return out
	}
	out.Version, out.Go = info.Main.Version, info.GoVersion
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			out.Revision = s.Value
		case "vcs.time":
			out.Time = s.Value
		case "vcs.modified":
			out.Modified = s.Value == "true"
		}
	}
	return out
}

// String is the one line `folio version` prints.
func (i Info) String() string {
	dirty := ""
	if i.Modified {
		dirty = " (modified)"
	}
	return strings.TrimSpace(fmt.Sprintf("folio %s commit %s%s (%s), %s", i.Version, i.Revision, dirty, i.Time, i.Go))
}
