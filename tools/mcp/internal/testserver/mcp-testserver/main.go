// Command mcp-testserver runs the test MCP server (package testserver) on stdio, for tests
// that need a real child process. It writes its pid to stderr first. With -print-env VAR it first writes VAR's value to stderr;
// with -spawn it starts a grandchild (itself with -sleep) in its process group (its Job Object
// on Windows), for orphan checks; with -sleep it only sleeps (a server that never answers); with
// -gate FILE it reads a line of FILE (a named pipe the test writes to when it lets the server
// start) before it serves, so a test controls when the server becomes ready.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-rpc/pi-rpc/tools/mcp/internal/testserver"
)

func main() {
	printEnv := flag.String("print-env", "", "write this variable's value to stderr at start")
	spawn := flag.Bool("spawn", false, "start a long sleep as a grandchild")
	sleep := flag.Bool("sleep", false, "sleep for ever, answering nothing")
	exitAtStart := flag.Int("exit", -1, "exit at once with this code, after a line on stderr")
	gate := flag.String("gate", "", "read a line of this file (a named pipe) before serving")
	flag.Parse()
	if *exitAtStart >= 0 {
		fmt.Fprintln(os.Stderr, "mcp-testserver: refusing to start")
		os.Exit(*exitAtStart)
	}
	fmt.Fprintf(os.Stderr, "mcp-testserver pid %d\n", os.Getpid())
	for *sleep { // until killed
		time.Sleep(time.Hour)
	}
	if *printEnv != "" {
		fmt.Fprintf(os.Stderr, "env %s=%s\n", *printEnv, os.Getenv(*printEnv))
	}
	if *spawn {
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, "spawn:", err)
			os.Exit(1)
		}
		child := exec.Command(self, "-sleep") //nolint:noctx // the grandchild must outlive us unless its group is killed.
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "spawn:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "grandchild %d\n", child.Process.Pid)
	}
	if *gate != "" {
		fmt.Fprintln(os.Stderr, "mcp-testserver waits at the gate")
		if err := waitAtGate(*gate); err != nil {
			fmt.Fprintln(os.Stderr, "gate:", err)
			os.Exit(1)
		}
	}
	s := testserver.New(testserver.Options{Stdio: true, Log: os.Stderr})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-testserver:", err)
		os.Exit(1)
	}
}

// waitAtGate blocks until a line can be read from path: a named pipe blocks its opener until
// the test opens it to write.
func waitAtGate(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = bufio.NewReader(f).ReadString('\n')
	return err
}
