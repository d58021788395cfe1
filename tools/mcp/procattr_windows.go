package mcp

import (
	"syscall"

	"github.com/pi-rpc/pi-rpc/internal/proctree"
)

// childAttrs has the server created suspended: startTransport puts it in a Job Object
// created with kill-on-close ([proctree]) and then resumes it, so that it and everything it
// spawns are ended both when Close kills it and when pi-rpc exits without closing it
// (Windows has no Pdeathsig; closing the job's last handle does the same).
func childAttrs() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{}
	proctree.Prepare(attr, true)
	return attr
}
