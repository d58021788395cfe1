package main

import "runtime/debug"

// buildVersion is the version pi-rpc reports (--version, initialize's serverInfo, the startup
// log line): the one set with -ldflags -X main.version if any; else the main module's version
// (a tagged `go install ...@v1.2.3`, or the pseudo-version the go command derives from the
// repository); else, for a "(devel)" build, the VCS revision it was built from, with "-dirty"
// when the tree had changes ("devel+0123456789ab-dirty"); else "(devel)".
func buildVersion(ldflags string, read func() (*debug.BuildInfo, bool)) string {
	if ldflags != "" {
		return ldflags
	}
	info, ok := read()
	if !ok {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "(devel)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := "devel+" + rev
	if modified == "true" {
		v += "-dirty"
	}
	return v
}
