package testkit

import (
	"net"
	"testing"
)

// AcceptingPort listens on a free loopback TCP port until the test ends, accepting and
// closing every connection, and returns the port: a connect to it succeeds exactly when the
// connection reaches it, which is what the sandbox tests ask of a command that tries to
// escape.
func AcceptingPort(t testing.TB) int {
	t.Helper()
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}
