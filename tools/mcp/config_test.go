package mcp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseConfigShapes(t *testing.T) {
	data := `{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {"A": "1"}, "cwd": "sub"},
		"gh": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${GH_TOKEN}"}},
		"old": {"type": "sse", "url": "http://localhost:9/sse"},
		"cursor": {"url": "http://localhost:9/mcp"},
		"zed": {"command": {"path": "zed-mcp", "args": ["--stdio"], "env": {"Z": "2"}}},
		"broken": {"command": 42},
		"odd": 7
	}}`
	servers, err := ParseConfig([]byte(data), "test.json")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ServerConfig{}
	var names []string
	for _, s := range servers {
		byName[s.Name] = s
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "broken,cursor,fs,gh,odd,old,zed" {
		t.Fatalf("names = %s", got)
	}
	fs := byName["fs"]
	if fs.Transport() != TransportStdio || fs.Command != "npx" || !reflect.DeepEqual(fs.Args, []string{"-y", "@modelcontextprotocol/server-filesystem", "."}) ||
		fs.Env["A"] != "1" || fs.Cwd != "sub" || fs.Source != "test.json" || fs.Validate() != nil {
		t.Fatalf("fs = %+v", fs)
	}
	if gh := byName["gh"]; gh.Transport() != TransportHTTP || gh.Headers["Authorization"] != "Bearer ${GH_TOKEN}" || gh.Validate() != nil {
		t.Fatalf("gh = %+v", gh)
	}
	if byName["old"].Transport() != TransportSSE || byName["cursor"].Transport() != TransportHTTP {
		t.Fatal("transport of old or cursor")
	}
	if z := byName["zed"]; z.Command != "zed-mcp" || !reflect.DeepEqual(z.Args, []string{"--stdio"}) || z.Env["Z"] != "2" || z.Validate() != nil {
		t.Fatalf("zed = %+v", z)
	}
	for _, name := range []string{"broken", "odd"} {
		if err := byName[name].Validate(); err == nil || !strings.Contains(err.Error(), "invalid entry") {
			t.Fatalf("%s: Validate = %v", name, err)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, data := range []string{`[]`, `{"mcpServers": []}`, `{"mcpServers": "x"}`, `not json`} {
		if _, err := ParseConfig([]byte(data), "f.json"); err == nil || !strings.HasPrefix(err.Error(), "f.json: ") {
			t.Errorf("%s: err = %v", data, err)
		}
	}
	if s, err := ParseConfig([]byte(`{}`), "f.json"); err != nil || len(s) != 0 {
		t.Errorf("empty config: %v %v", s, err)
	}
	bad := []ServerConfig{
		{Name: "a"},
		{Name: "b", Command: "x", URL: "http://h/"},
		{Name: "c", Type: "http"},
		{Name: "d", Type: "sse", URL: "http://h", Command: "x"},
		{Command: "x"},
	}
	for _, c := range bad {
		if c.Validate() == nil {
			t.Errorf("%+v validated", c)
		}
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "none.json")); !os.IsNotExist(err) {
		t.Errorf("LoadFile of a missing file: %v", err)
	}
}

func TestResolveEnv(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	c := ServerConfig{Name: "x", Command: "${HOME}/bin/srv", Args: []string{"--root=${HOME}", "$NOT_A_REF", "${MISSING:-fallback}", "${EMPTY:-def}", "${EMPTY}"},
		URL: "", Env: map[string]string{"K": "v-${HOME}"}, Headers: map[string]string{"H": "${HOME}"}}
	r, err := c.resolve(lookup)
	if err != nil {
		t.Fatal(err)
	}
	if r.Command != "/home/u/bin/srv" || !reflect.DeepEqual(r.Args, []string{"--root=/home/u", "$NOT_A_REF", "fallback", "def", ""}) ||
		r.Env["K"] != "v-/home/u" || r.Headers["H"] != "/home/u" {
		t.Fatalf("resolved = %+v", r)
	}
	if c.Env["K"] != "v-${HOME}" {
		t.Fatal("resolve changed the original")
	}
	_, err = ServerConfig{Name: "x", Command: "a", Env: map[string]string{"A": "${B}", "C": "${A1}${B}"}}.resolve(lookup)
	if err == nil || err.Error() != "environment variable A1, B is not set" {
		t.Fatalf("err = %v", err)
	}
	_, err = ServerConfig{Name: "x", URL: "ftp://h/x"}.resolve(lookup)
	if err == nil || !strings.Contains(err.Error(), "not an http or https URL") {
		t.Fatalf("url err = %v", err)
	}
}

func TestMergeLaterWins(t *testing.T) {
	a := []ServerConfig{{Name: "x", Command: "a"}, {Name: "y", Command: "a"}}
	b := []ServerConfig{{Name: "x", Command: "b"}}
	got := Merge(a, b)
	if len(got) != 2 || got[0].Name != "x" || got[0].Command != "b" || got[1].Command != "a" {
		t.Fatalf("merge = %+v", got)
	}
}

func TestAssignNames(t *testing.T) {
	long := strings.Repeat("t", 80)
	names := assignNames([]toolKey{
		{"fs", "read_file"}, {"my server", "do.it"}, {"my_server", "do_it"}, {"s", long}, {"é", "x"},
	})
	if names[toolKey{"fs", "read_file"}] != "mcp__fs__read_file" || names[toolKey{"é", "x"}] != "mcp______x" {
		t.Fatalf("names = %v", names)
	}
	// "my server"/"do.it" sorts first and keeps the plain name; the other gets a hash suffix.
	if a, b := names[toolKey{"my server", "do.it"}], names[toolKey{"my_server", "do_it"}]; a != "mcp__my_server__do_it" || !strings.HasPrefix(b, "mcp__my_server__do_it_") || len(b) != len(a)+9 {
		t.Fatalf("collision: %q %q", a, b)
	}
	if n := names[toolKey{"s", long}]; len(n) != 64 || !strings.HasPrefix(n, "mcp__s__ttt") {
		t.Fatalf("long name %q (%d)", n, len(n))
	}
	// The same set in another order gets the same names.
	again := assignNames([]toolKey{{"my_server", "do_it"}, {"é", "x"}, {"s", long}, {"my server", "do.it"}, {"fs", "read_file"}})
	if !reflect.DeepEqual(names, again) {
		t.Fatalf("names depend on order: %v vs %v", names, again)
	}
	for _, n := range names {
		for _, c := range n {
			if !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", c) {
				t.Fatalf("%q has %q", n, c)
			}
		}
	}
}
