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

// Read returns the binary's build information.
func Read() Info {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "unknown", Revision: "unknown", Time: "unknown", Go: "unknown"}
	}
	out := Info{Version: info.Main.Version, Revision: "unknown", Time: "unknown", Go: info.GoVersion}
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
