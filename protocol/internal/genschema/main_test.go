package main

import (
	"bytes"
	"flag"
	"path/filepath"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite protocol/schema.json")

// TestSchemaUpToDate regenerates schema.json in memory, with the code go generate runs, and
// compares it with the committed file (which protocol embeds for describe).
func TestSchemaUpToDate(t *testing.T) {
	got, err := generate()
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	testkit.UpToDate(t, got, filepath.Join("..", "..", "schema.json"), "protocol/schema.json",
		"run go generate ./protocol (or go test ./protocol/internal/genschema -update)", *update)
}

// TestGenerateDeterministic guards against map-order or state leaking between runs.
func TestGenerateDeterministic(t *testing.T) {
	a, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two generations differ")
	}
	if !bytes.HasSuffix(a, []byte("}\n")) || bytes.Contains(a, []byte("\t")) {
		t.Fatal("schema.json is not 2-space indented with a trailing newline")
	}
}

// TestSlashKeys: the keys AddGoComments makes on Windows (the walked directory joined with its
// backslashes) become the /-separated ones the reflector looks up, so the schema's
// descriptions do not drop out there; /-separated keys stay as they are.
func TestSlashKeys(t *testing.T) {
	m := map[string]string{
		module + `/protocol/internal/genschema/..\..\..\protocol.Event`:      "an event",
		module + `/protocol/internal/genschema/..\..\..\protocol.Event.Type`: "its type",
		module + "/protocol.Other": "other",
	}
	slashKeys(m)
	want := map[string]string{
		module + "/protocol.Event":      "an event",
		module + "/protocol.Event.Type": "its type",
		module + "/protocol.Other":      "other",
	}
	if len(m) != len(want) {
		t.Fatalf("got %v", m)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s: got %q, want %q (map %v)", k, m[k], v, m)
		}
	}
}
