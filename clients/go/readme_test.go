package piclient_test

import (
	"os"
	"strings"
	"testing"
)

// exampleProgram turns example_test.go's Example into the program README.md shows: package
// main, func main, without the example's doc comment and its Output block.
func exampleProgram(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	doc := strings.Index(src, "// This example is the one")
	fn := strings.Index(src, "func Example() {")
	out := strings.Index(src, "\n\t// Output:")
	if doc < 0 || fn < doc || out < fn {
		t.Fatal("example_test.go: no documented Example with an Output block")
	}
	prog := src[:doc] + strings.TrimRight(src[fn:out], "\n\t ") + "\n}\n"
	prog = strings.Replace(prog, "package piclient_test", "package main", 1)
	return strings.Replace(prog, "func Example() {", "func main() {", 1)
}

// TestReadmeExample: the complete example of README.md is Example, which go test compiles and
// runs against the binary, so the README's code cannot rot.
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "```go\n" + exampleProgram(t) + "```\n"
	if !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not show example_test.go's Example as a program; its block should be:\n%s", want)
	}
}
