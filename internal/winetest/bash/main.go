// Command bash is the stand-in for Git for Windows' bash.exe in make test-windows: there is no
// Git Bash under Wine, so the tests of the bash tool, the user's bash method and models.json
// "!command" values run their commands with this one, built for Windows and put where Git for
// Windows' installer puts bash.exe (C:\Program Files\Git\bin\bash.exe in the Wine prefix), so
// that internal/shellfind finds it as it finds Git Bash.
//
// It is mvdan.cc/sh's POSIX/bash interpreter (its builtins: echo, printf, cd, exit, read, test,
// ...) with three commands of its own, so that a command makes a real process tree for the Job
// Object to end:
//
//   - sleep N runs this program again as a child process that sleeps N seconds;
//   - bash ARGS runs this program again as a child shell;
//   - cat [FILE...] copies the files (or stdin) to stdout, and seq [FIRST] LAST prints the
//     numbers, both in this process.
//
// Usage: bash [-l] -c COMMAND [NAME [ARG...]], or bash [FILE] (the script from stdin without
// FILE). The exit status is the command's.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// sleepFlag makes this program the child that sleep starts.
const sleepFlag = "--stand-in-sleep"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == sleepFlag {
		return sleep(args[1], stderr)
	}
	for len(args) > 0 && (args[0] == "-l" || args[0] == "--login" || args[0] == "--norc" || args[0] == "--noprofile") {
		args = args[1:]
	}
	var src io.Reader
	name := "bash"
	switch {
	case len(args) > 0 && args[0] == "-c":
		if len(args) < 2 {
			fmt.Fprintln(stderr, "bash: -c: option requires an argument")
			return 2
		}
		src, args = strings.NewReader(args[1]), args[2:]
		if len(args) > 0 {
			name, args = args[0], args[1:]
		}
	case len(args) > 0:
		f, err := os.Open(args[0])
		if err != nil {
			fmt.Fprintf(stderr, "bash: %s: %v\n", args[0], err)
			return 127
		}
		defer func() { _ = f.Close() }()
		src, name, args = f, args[0], args[1:]
	default:
		src = stdin
	}
	file, err := syntax.NewParser().Parse(src, name)
	if err != nil {
		fmt.Fprintf(stderr, "bash: %v\n", err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "bash: %v\n", err)
		return 1
	}
	runner, err := interp.New(
		interp.StdIO(stdin, stdout, stderr),
		interp.Params(append([]string{"--"}, args...)...),
		interp.Env(expand.ListEnviron(os.Environ()...)),
		interp.ExecHandlers(commands(self)),
	)
	if err != nil {
		fmt.Fprintf(stderr, "bash: %v\n", err)
		return 1
	}
	err = runner.Run(context.Background(), file)
	if status, ok := errors.AsType[interp.ExitStatus](err); ok {
		return int(status)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bash: %v\n", err)
		return 1
	}
	return 0
}

// commands adds sleep, bash and cat to the interpreter (see the package doc).
func commands(self string) func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
		return func(ctx context.Context, args []string) error {
			switch args[0] {
			case "sleep":
				if len(args) != 2 {
					fmt.Fprintln(interp.HandlerCtx(ctx).Stderr, "sleep: usage: sleep SECONDS")
					return interp.ExitStatus(2)
				}
				return next(ctx, []string{self, sleepFlag, args[1]})
			case "bash":
				return next(ctx, append([]string{self}, args[1:]...))
			case "cat":
				return cat(interp.HandlerCtx(ctx), args[1:])
			case "seq":
				return seq(interp.HandlerCtx(ctx), args[1:])
			}
			return next(ctx, args)
		}
	}
}

func sleep(arg string, stderr io.Writer) int {
	secs, err := strconv.ParseFloat(arg, 64)
	if err != nil || secs < 0 {
		fmt.Fprintf(stderr, "sleep: invalid time interval %q\n", arg)
		return 1
	}
	time.Sleep(time.Duration(secs * float64(time.Second)))
	return 0
}

func cat(hc interp.HandlerContext, files []string) error {
	if len(files) == 0 {
		_, err := io.Copy(hc.Stdout, hc.Stdin)
		return err
	}
	status := uint8(0)
	for _, name := range files {
		if !filepath.IsAbs(name) {
			name = filepath.Join(hc.Dir, name)
		}
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(hc.Stderr, "cat: %v\n", err)
			status = 1
			continue
		}
		_, err = io.Copy(hc.Stdout, f)
		_ = f.Close()
		if err != nil {
			return err
		}
	}
	if status != 0 {
		return interp.ExitStatus(status)
	}
	return nil
}

func seq(hc interp.HandlerContext, args []string) error {
	first, last := 1, 0
	var err error
	switch len(args) {
	case 1:
		last, err = strconv.Atoi(args[0])
	case 2:
		if first, err = strconv.Atoi(args[0]); err == nil {
			last, err = strconv.Atoi(args[1])
		}
	default:
		err = errors.New("usage: seq [FIRST] LAST")
	}
	if err != nil {
		fmt.Fprintf(hc.Stderr, "seq: %v\n", err)
		return interp.ExitStatus(1)
	}
	var b strings.Builder
	for i := first; i <= last; i++ {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	_, err = io.WriteString(hc.Stdout, b.String())
	return err
}
