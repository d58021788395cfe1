package mcp

import (
	"context"
	"os"
	"time"

	"github.com/rs/zerolog"
)

// parentModeEnv makes the test binary act as pi-rpc in TestServerDiesWithTheProcess: it
// starts a stdio server and waits to be killed.
const parentModeEnv = "PI_RPC_MCP_TEST_PARENT"

// runAsParent starts a server that ignores its stdin (so only the kernel's parent-death
// signal can end it), logs to stdout, and blocks forever.
func runAsParent() {
	log := zerolog.New(os.Stdout)
	go func() {
		_, _ = Connect(context.Background(), []ServerConfig{{
			Name: "stubborn", Command: "sh", Args: []string{"-c", "echo child $$ >&2; exec sleep 1000"},
		}}, Options{Logger: log, CallTimeout: time.Hour, Cwd: os.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
	}()
	select {}
}
