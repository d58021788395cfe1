package mcp

import "syscall"

// childAttrs asks for nothing on Windows: afterStart puts the server in a Job Object created
// with kill-on-close ([proctree]), which ends it and what it spawned both when Close kills it
// and when pi-rpc exits without closing it (Windows has no Pdeathsig; closing the job's last
// handle does the same). The server is created running, since the SDK starts it.
func childAttrs() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
