package mockhttp

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// Served is what a mock command serves: the handler, the path its base URL adds to the
// server root ("/v1" for OpenAI, "" for Anthropic), and the hooks that end it.
type Served struct {
	Handler    http.Handler
	URLSuffix  string
	Release    func()
	Summary    func() string
	Logger     *log.Logger
	Stdin      *os.File
	Stdout     io.Writer
	ListenAddr string
}

// Serve listens on the loopback address, prints the base URL as the only line on stdout,
// logs each request, and returns on SIGTERM, SIGINT, or EOF on a piped stdin (so a parent
// that dies takes the mock along), after releasing stalls and shutting down.
func Serve(s Served) error {
	host, _, err := net.SplitHostPort(s.ListenAddr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", s.ListenAddr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--addr %q: only loopback addresses are allowed", s.ListenAddr)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", s.ListenAddr)
	if err != nil {
		return err
	}
	logged := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Logger.Printf("%s %s", r.Method, r.URL.Path)
		s.Handler.ServeHTTP(w, r)
	})
	hs := &http.Server{Handler: logged, ReadHeaderTimeout: 10 * time.Second}
	if _, err := fmt.Fprintf(s.Stdout, "http://%s%s\n", ln.Addr(), s.URLSuffix); err != nil {
		_ = ln.Close()
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if watchesStdin(s.Stdin) {
		go func() {
			_, _ = io.Copy(io.Discard, s.Stdin)
			stop()
		}()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.Release()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdownCtx)
	s.Logger.Print(s.Summary())
	return nil
}

// watchesStdin reports whether stdin's EOF should stop the server: only for a pipe or a
// socket, which a parent holds open and whose EOF means the parent is gone. /dev/null, a
// terminal or a file reach EOF (or wait for a key) without meaning anything.
func watchesStdin(stdin *os.File) bool {
	if stdin == nil {
		return false
	}
	fi, err := stdin.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}

// Summary is the line a mock logs when it stops.
func (s *Recorder[R]) Summary() string {
	return fmt.Sprintf("served %d requests, %d scripted responses left", len(s.Requests()), s.Pending())
}

// Mock is what a mock command serves: a scripted server (a [Server]).
type Mock interface {
	http.Handler
	Release()
	Summary() string
	URLSuffix() string
}

// Command is the mock command's line: `NAME [--dialect D] --script FILE [--addr ADDR]`,
// serving the first of Dialects unless --dialect names another.
type Command struct {
	Name string
	// Usage is printed by --help before the flags; the chosen dialect's Format after them.
	Usage    string
	Dialects []CommandDialect
}

// CommandDialect is one wire the command serves: its --dialect name, the script format
// --help prints for it, and Load, which reads a script file and returns the server that
// plays it (see [Loader]).
type CommandDialect struct {
	Name, Format string
	Load         func(script string) (Mock, error)
}

// Run parses args and serves; it returns the exit code (0 after --help or a clean stop, 1
// with a one-line error on stderr).
func (c Command) Run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	logger := log.New(stderr, c.Name+": ", 0)
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	dialect := fs.String("dialect", c.Dialects[0].Name, "the provider wire to serve: "+c.dialectNames())
	script := fs.String("script", "", "JSON script of responses (required)")
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	err := fs.Parse(args)
	d, derr := c.dialect(*dialect)
	if errors.Is(err, flag.ErrHelp) && derr == nil {
		_, _ = io.WriteString(stdout, c.Usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		_, _ = io.WriteString(stdout, d.Format)
		return 0
	}
	if err == nil || errors.Is(err, flag.ErrHelp) {
		err = derr
	}
	if err != nil {
		logger.Printf("%v (see %s --help)", err, c.Name)
		return 1
	}
	err = func() error {
		if *script == "" {
			return fmt.Errorf("--script is required (see %s --help)", c.Name)
		}
		m, err := d.Load(*script)
		if err != nil {
			return err
		}
		return Serve(Served{
			Handler: m, URLSuffix: m.URLSuffix(), Release: m.Release, Summary: m.Summary,
			Logger: logger, Stdin: stdin, Stdout: stdout, ListenAddr: *addr,
		})
	}()
	if err != nil {
		logger.Print(err)
		return 1
	}
	return 0
}

func (c Command) dialect(name string) (CommandDialect, error) {
	for _, d := range c.Dialects {
		if d.Name == name {
			return d, nil
		}
	}
	return CommandDialect{}, fmt.Errorf("--dialect %q: want one of %s", name, c.dialectNames())
}

func (c Command) dialectNames() string {
	names := make([]string, len(c.Dialects))
	for i, d := range c.Dialects {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}

// Loader is a [CommandDialect]'s Load for a mock whose load reads a script file and whose
// serve returns the server that plays it (a mock's LoadScript and NewHandler).
func Loader[S any, M Mock](load func(path string) (S, error), serve func(S) M) func(string) (Mock, error) {
	return func(path string) (Mock, error) {
		s, err := load(path)
		if err != nil {
			return nil, err
		}
		return serve(s), nil
	}
}
